// Generated from gateway/openapi.yaml by openapi-typescript (npm run gen:api); do not edit.
export interface paths {
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who is calling */
        get: operations["get_me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Service health */
        get: operations["get_health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/applications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List applications */
        get: operations["list_applications"];
        put?: never;
        /**
         * Register an application
         * @description Registers an application with pinned source. The name is unique in the project. Starts nothing.
         */
        post: operations["create_application"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/applications/import-catalog": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register the sample applications
         * @description Registers pinned sample applications from the packaged catalog, in catalog order, as
         *     many as the plan's application limit leaves room for (free plan: the first only).
         */
        post: operations["import_catalog"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/applications/{app_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                app_id: components["parameters"]["AppId"];
            };
            cookie?: never;
        };
        /** Read an application */
        get: operations["get_application"];
        put?: never;
        post?: never;
        /**
         * Delete an application
         * @description Its builds stop; finished runs stay in history.
         */
        delete: operations["delete_application"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/applications/{app_id}/source": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                app_id: components["parameters"]["AppId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload the source archive
         * @description One multipart part `file`: a .tar.gz archive of the application source (for
         *     applications with source kind `upload`), or a world bundle, which is imported: its
         *     source.tar.gz becomes the source and, with container sandboxes, its images are loaded,
         *     verified and pinned on the application under the project's own names (docs/exports.md).
         *     The validator cannot check binary parts; the gateway checks that `file` is present.
         */
        post: operations["upload_application_source"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/world-builds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Build a world version from an application */
        post: operations["create_world_build"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List server jobs
         * @description Newest first. Needs `evaluator` (CLARIFICATIONS.md 1).
         */
        get: operations["list_jobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        /**
         * Read a server job
         * @description Needs `evaluator` (CLARIFICATIONS.md 1).
         */
        get: operations["get_job"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{job_id}/commands": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause, resume, stop or retry a job
         * @description `retry` restarts a failed or stopped job from its last saved step.
         */
        post: operations["command_job"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/worlds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List worlds */
        get: operations["list_worlds"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/world-versions/{wv_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        /** Read a world version */
        get: operations["get_world_version"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/world-versions/{wv_id}/scenarios": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        /** List the scenarios (jobs) of a world version */
        get: operations["list_scenarios"];
        put?: never;
        /**
         * Add a scenario
         * @description The scenario is validated before it can be approved.
         */
        post: operations["create_scenario"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios/{sc_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sc_id: components["parameters"]["ScId"];
            };
            cookie?: never;
        };
        /** Read a scenario */
        get: operations["get_scenario"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios/{sc_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sc_id: components["parameters"]["ScId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a scenario
         * @description Runs then use the job.
         */
        post: operations["approve_scenario"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios/{sc_id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sc_id: components["parameters"]["ScId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a scenario
         * @description Runs do not use the job.
         */
        post: operations["reject_scenario"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/world-versions/{wv_id}/validate": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate a world version
         * @description Replays every job, tries each with a live agent, withdraws unfair ones. With a model agent (`model`, else by default the model configured for the project) each fair job is also played without the answer key, and those it could not solve are flagged `unsolved_without_key` and listed for review with the model agent's transcript beside the reference agent's result (docs/scoring.md, The model agent). The 202 answer names `model` and `model_from`.
         */
        post: operations["validate_world_version"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agent profiles */
        get: operations["list_agent_profiles"];
        put?: never;
        /**
         * Create an agent profile (or the next version of a name)
         * @description A second profile with the same name becomes the next version of that name.
         */
        post: operations["create_agent_profile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-profiles/{prof_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                prof_id: components["parameters"]["ProfId"];
            };
            cookie?: never;
        };
        /** Read an agent profile version */
        get: operations["get_agent_profile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/evaluations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a run */
        post: operations["create_evaluation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List runs */
        get: operations["list_runs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: components["parameters"]["RunId"];
            };
            cookie?: never;
        };
        /** Read a run */
        get: operations["get_run"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{run_id}/commands": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: components["parameters"]["RunId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause, resume, stop or retry a run
         * @description Goes to every shard job it applies to.
         */
        post: operations["command_run"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{run_id}/episodes": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: components["parameters"]["RunId"];
            };
            cookie?: never;
        };
        /** List the episodes of a run */
        get: operations["list_run_episodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/compare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compare runs
         * @description Compares profiles within one run (`run_a` alone), or two runs on the same pinned
         *     world version (same `world_content_hash`; 409 otherwise). When their pinned scenario
         *     sets differ, the scenarios both ran with equal specifications are compared and
         *     `scenario_set` names those left out (`left_out`, `only_in`, `changed`); runs with no
         *     scenario in common answer 409, and so do runs whose customer or judge models differ
         *     (`simulators` says what both used). `comparisons` pairs profiles scenario by scenario with
         *     an interval, a paired test and a verdict (docs/runs.md, Compare).
         */
        get: operations["compare_runs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/improvements": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Propose an improved profile version
         * @description Starts an improvement job; its result names the new profile version and the reason
         *     for each change.
         */
        post: operations["create_improvement"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes/{ep_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        /**
         * Read the full episode record
         * @description Needs `evaluator` (CLARIFICATIONS.md 2).
         */
        get: operations["get_episode"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes/{ep_id}/interventions": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Intervene in a running episode */
        post: operations["create_intervention"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes/{ep_id}/rejudge": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-judge an episode's unjudged policy checks
         * @description An addition beside the spec's table (docs/scoring.md, Judged checks). A policy check
         *     whose judge was missing or failed is recorded as failed with `judge_error`, and the
         *     episode's oracle says `needs_rejudge`. This asks the world version's judge
         *     (`judge_model`, else the server's) about those checks over the saved transcript, stores
         *     the new oracle, reward and success, adds the judge's spend to the episode's cost and
         *     recomputes the run's summary. 409 when the episode has nothing to re-judge, its run has
         *     not ended, or no judge is configured.
         */
        post: operations["rejudge_episode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes/{ep_id}/observation": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        /**
         * Read the waiting turn
         * @description When `awaiting_action` is false, ask again after a second or two. Addition beside the spec: with `Prefer: wait=N` (RFC 7240, N seconds, at most 30) the answer is held until a turn waits for the agent's action or the episode ends, or for N seconds, so an agent learns of its turn as it is offered instead of polling; the answer then carries `Preference-Applied`. Without the header nothing changes.
         */
        get: operations["get_observation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes/{ep_id}/actions": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send the action of the waiting turn
         * @description The action is carried out after the 202 answer; poll its result by key. Re-sending
         *     the same action with the same key does not execute it twice (`duplicate: true`).
         */
        post: operations["post_action"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes/{ep_id}/actions/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
                /** @description The idempotency key the action was sent with. */
                key: components["parameters"]["ActionKey"];
            };
            cookie?: never;
        };
        /**
         * Read the result of an action by its idempotency key
         * @description While `pending`, ask again after about 0.5 seconds.
         */
        get: operations["get_action_result"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{job_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        /** Stream the events of a server job */
        get: operations["stream_job_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{run_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: components["parameters"]["RunId"];
            };
            cookie?: never;
        };
        /** Stream the events of a run */
        get: operations["stream_run_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/streams/{stream}/events/page": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the server job or run the events belong to. */
                stream: string;
            };
            cookie?: never;
        };
        /**
         * Read one page of events
         * @description For replay and reconnect snapshots.
         */
        get: operations["get_events_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dataset-exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Export episodes as a dataset
         * @description Holdout episodes cannot be exported.
         */
        post: operations["create_dataset_export"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/world-versions/{wv_id}/bundle": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Export a world version as a bundle
         * @description A job writes a .tar.gz of the published version (docs/exports.md). With
         *     `include_images=true` and container sandboxes, each pinned image is saved from the
         *     container engine into the bundle; otherwise manifest.json and images.json say why no
         *     image is included. Uploading a bundle as an application's source imports it.
         */
        post: operations["create_bundle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/artifacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List datasets and bundles */
        get: operations["list_artifacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/artifacts/{art_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                art_id: components["parameters"]["ArtId"];
            };
            cookie?: never;
        };
        /** Read an artifact record */
        get: operations["get_artifact"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/artifacts/{art_id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                art_id: components["parameters"]["ArtId"];
            };
            cookie?: never;
        };
        /**
         * Download an artifact file
         * @description The artifact's bytes, with `Content-Disposition: attachment` and its file name. Every
         *     artifact made now is gzip-compressed (a dataset's `.jsonl.gz`, a bundle's `.tar.gz`) and
         *     answers `Content-Type: application/gzip`; `application/octet-stream` is what a file of
         *     another kind would answer.
         */
        get: operations["download_artifact"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dashboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Everything the overview screen needs */
        get: operations["get_dashboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This month's model spend */
        get: operations["get_usage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Plan, usage and subscription */
        get: operations["get_billing"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open a checkout page for a plan or top-up */
        post: operations["billing_checkout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/change": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move the subscription to another plan now
         * @description The provider charges or credits the difference.
         */
        post: operations["billing_change"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open the provider's customer portal */
        post: operations["billing_portal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Read subscription and top-ups back from the provider */
        post: operations["billing_sync"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Notifications from the payment provider
         * @description The payment provider's notifications (spec section 6 rule 7 leaves path and payload
         *     unnamed). The body is taken raw, exactly as the provider sent it, and checked
         *     against the provider's signature header before it is parsed; a notification that
         *     fails the check answers 400. `billing_sync` covers a notification that never came.
         */
        post: operations["billing_webhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Price and market range per configured model */
        get: operations["get_pricing"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description Never shows the key itself.
         */
        get: operations["list_api_keys"];
        put?: never;
        /**
         * Create an API key
         * @description The answer holds the key text once; only a hash of it is stored.
         */
        post: operations["create_api_key"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description The key stops working at once; later requests with it answer 401.
         */
        delete: operations["delete_api_key"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List credential references */
        get: operations["list_credentials"];
        put?: never;
        /** Add a credential reference */
        post: operations["create_credential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credentials/{cred_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                cred_id: components["parameters"]["CredId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a credential reference */
        delete: operations["delete_credential"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account
         * @description Creates the account and signs the browser in: 201 with the session cookie (12 hours)
         *     and `{user, project_id: null, needs_onboarding: true, session}`; onboarding then
         *     creates the workspace. An address that already has an account answers 409 saying to
         *     sign in, and the account is unchanged. Every attempt, 409s included, counts against
         *     the sign-up throttle per client address (429 with `Retry-After`), so probing which
         *     addresses have accounts costs as much as creating them (docs/accounts.md). Answers
         *     403 when the server has `SERVICE_SIGNUP=closed`.
         */
        post: operations["auth_signup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with email address and password
         * @description Sets the session cookie (12 hours). Repeated failures make the account wait (1, 2, 4 ... 60 seconds) and then block it, or block the client address, for 15 minutes; such attempts answer 429 with `Retry-After` before the password is checked.
         */
        post: operations["auth_login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set an account's password with a one-time link
         * @description **Addition to the spec's table.** Takes the token of a link the operator printed
         *     (`crucible admin create-workspace --email`, `crucible admin add-user --password-link`),
         *     sets the account's password, signs out the account's other sessions and signs this
         *     browser in (200 with the session cookie, as sign-in). A link works once (then 410),
         *     until it expires (24 hours by default; then 410); an unknown token answers 404. Only
         *     the token's SHA-256 is stored. At most 20 attempts per client address in 10 minutes
         *     (then 429 with `Retry-After`).
         */
        post: operations["auth_set_password"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/idp/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an identity-provider sign-in
         * @description An addition to the spec's table, needed by `auth_idp`: sets a short-lived HttpOnly,
         *     SameSite=Lax cookie (15 minutes, `Secure` over https) for this browser's sign-in and
         *     answers the `nonce` and `state` to send to the provider's authorization endpoint, plus
         *     `expires_in` (seconds). A new start replaces the previous one. 403 without
         *     `SERVICE_IDP_CLIENT_ID`.
         */
        post: operations["auth_idp_start"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/idp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with an identity provider ID token
         * @description Registers the account on first use. Sets the session cookie. The token's `nonce` claim
         *     must be the one `POST /v1/auth/idp/start` gave this browser (its cookie comes with the
         *     request; `state`, when sent, must be its state too), else 401; the start's cookie is
         *     cleared with any answer, so one start signs in at most once.
         */
        post: operations["auth_idp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/onboarding/workspace": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create the workspace of a new account */
        post: operations["onboarding_workspace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Switch the console session to another project
         * @description **Addition to the spec's table.** Moves this console session to another project the
         *     user is a member of (`GET /v1/memberships`); the next request acts there with the
         *     role held there. A project the user is not a member of answers 404; a key answers
         *     409 (a key belongs to one project).
         */
        put: operations["switch_session_project"];
        post?: never;
        /** Sign the browser out */
        delete: operations["delete_session"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memberships": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the projects the caller can act in
         * @description **Addition to the spec's table.** For a console session: every project the user is a
         *     member of, oldest membership first, with `project_id`, `project`, `organization_id`,
         *     `organization`, `plan`, `role` and `current` (the one this session acts in). For a
         *     key: its own project (`role` null).
         */
        get: operations["list_memberships"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a project in the organization
         * @description **Addition to the spec's table.** An owner, in a console session, makes another
         *     project in the organization the session acts in (on its plan): 201 with the project
         *     as `GET /v1/memberships` lists it (`current` false; `PUT /v1/session` moves there).
         *     The caller is its one member, as owner. `name` is trimmed, 1 to 100 characters,
         *     unique in the organization (409 when taken); at most 100 projects per organization
         *     (409). An admin or member answers 403, a key 409 (a key belongs to one project).
         */
        post: operations["create_project"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the project's open invitations
         * @description **Addition to the spec's table.** Invitations into this project not yet accepted,
         *     withdrawn or expired, newest first; never their links.
         */
        get: operations["list_invitations"];
        put?: never;
        /**
         * Invite an e-mail address into the project
         * @description **Addition to the spec's table.** Owners and admins (or an admin key) invite an
         *     address as `member` (default) or `admin`: 201 with `url`, the link to hand to that
         *     person (shown once; only its SHA-256 is stored), and `expires_at` (7 days). The
         *     answer is the same whether or not the address has an account. Nothing changes
         *     until the person, signed in with that address, accepts. At most 100 open
         *     invitations per project (then 409).
         */
        post: operations["create_invitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation into a project
         * @description **Addition to the spec's table.** A console session of the invited address accepts:
         *     the user becomes a member with the invitation's role (an existing membership keeps
         *     its role) and the session moves into the project. Another address answers 403; an
         *     unknown or withdrawn link 404; a used or expired one 410; a key 409.
         */
        post: operations["accept_invitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the project's members
         * @description **Addition to the spec's table.** The project's people, oldest membership first, with
         *     `user_id`, `email`, `name`, `role` (`owner`, `admin` or `member`), `project_id` and
         *     `created_at`.
         */
        get: operations["list_members"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/members/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: components["parameters"]["MemberUserId"];
            };
            cookie?: never;
        };
        get?: never;
        /**
         * Change a member's role
         * @description **Addition to the spec's table.** Owners change anyone's role; admins (people or
         *     admin keys) move people between `member` and `admin` but neither make an owner nor
         *     change one (403). The last owner cannot be demoted (409). Recorded as an audit event
         *     `member.role_changed`; the member's open event streams that the new role no longer
         *     allows end within a second.
         */
        put: operations["update_member"];
        post?: never;
        /**
         * Remove a member from the project
         * @description **Addition to the spec's table.** Owners remove anyone; admins remove members and
         *     admins (themselves included), not owners (403). The last owner cannot be removed (409).
         *     Recorded as an audit event `member.removed`; the person's open event streams on the
         *     project end within a second and their console session leaves the project. Keys made
         *     in the project stay (they belong to the project): revoke them apart.
         */
        delete: operations["delete_member"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the changes to the project's people
         * @description **Addition to the spec's table.** Every role change and removal of a member
         *     (`member.role_changed`, `member.removed`), newest first, with who made it
         *     (`actor_user_id` or `actor_key_id`), whom it touched, and the role before and after.
         */
        get: operations["list_audit_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/{inv_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                inv_id: components["parameters"]["InvId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Withdraw an invitation
         * @description **Addition to the spec's table.** Its link stops working. An accepted invitation answers 409.
         */
        delete: operations["delete_invitation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cli/logins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a terminal sign-in
         * @description The request expires after 10 minutes. At most 20 requests per client address in 10 minutes; more answer 429 with `Retry-After`.
         */
        post: operations["create_cli_login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cli/logins/poll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Poll a terminal sign-in
         * @description The first poll after approval returns the new key, once.
         */
        post: operations["poll_cli_login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cli/logins/{code}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The confirmation code (`user_code`) the terminal shows. */
                code: components["parameters"]["Code"];
            };
            cookie?: never;
        };
        /**
         * Show a terminal sign-in request
         * @description Shows which terminal asks, from where, for which workspace. Look-ups and decisions share a limit of 60 per client address in 5 minutes; more answer 429 with `Retry-After`.
         */
        get: operations["get_cli_login"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cli/logins/{code}/{decision}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The confirmation code (`user_code`) the terminal shows. */
                code: components["parameters"]["Code"];
                decision: "approve" | "deny";
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or deny a terminal sign-in
         * @description Only an owner or an admin of the workspace can approve. Approval creates a key with
         *     `write` and `evaluator`, named after the terminal, handed over on the next poll.
         *     Counts against the look-up limit of 60 per client address in 5 minutes (429 with `Retry-After`).
         */
        post: operations["decide_cli_login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List every workspace */
        get: operations["admin_list_organizations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/workers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the world-workers
         * @description Every registered world-worker with `status` (`up` while its heartbeat is current,
         *     else `lost`), `draining`, `capacity`, `active` and `last_seen_at`, by id.
         */
        get: operations["admin_list_workers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/workers/{worker_id}/{action}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                worker_id: string;
                /** @description `drain`: placement skips the worker and its running episodes finish; `undrain`: it takes episodes again. */
                action: "drain" | "undrain";
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Drain or undrain a world-worker */
        post: operations["admin_drain_worker"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/organizations/{org_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                org_id: components["parameters"]["OrgId"];
            };
            cookie?: never;
        };
        get?: never;
        /** Set a workspace's plan and limits without payment */
        put: operations["admin_update_organization"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/organizations/{org_id}/credits": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                org_id: components["parameters"]["OrgId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add builds or episodes for this month */
        post: operations["admin_add_credits"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/training-jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List training jobs
         * @description None can exist yet.
         */
        get: operations["list_training_jobs"];
        put?: never;
        /**
         * Start a training job
         * @description Training is announced but not built; the answer says it is coming soon and nothing is created.
         */
        post: operations["create_training_job"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/training-jobs/{tj_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tj_id: components["parameters"]["TjId"];
            };
            cookie?: never;
        };
        /**
         * Read a training job
         * @description None can exist yet, so every id answers 404.
         */
        get: operations["get_training_job"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            detail: string | components["schemas"]["FieldProblem"][];
        };
        FieldProblem: {
            /** @description Dotted path of the wrong field, e.g. `source.commit`, `query.limit`, or `body`. */
            field: string;
            message: string;
        };
        /** @description Fields not named by the interface spec. */
        UnspecifiedObject: Record<string, unknown>;
        /** @description A list; fields of the items are not named by the interface spec. */
        ObjectList: Record<string, unknown>[];
        Name: string;
        Id: string;
        BudgetUsd: number;
        /**
         * Format: date-time
         * @description UTC timestamp (ISO 8601).
         */
        Timestamp: string;
        Scopes: ("admin" | "read" | "write" | "evaluator" | "agent")[];
        Email: string;
        Identity: {
            /** @description Null for a console user who has not created a workspace yet. */
            project_id: string | null;
            /** @description The project's name. */
            project: unknown;
            /** @description The organization's name. */
            organization: unknown;
            /** @description Null for a console session. */
            key_id: string | null;
            scopes: components["schemas"]["Scopes"];
            /** @description The workspace's plan name. */
            plan: unknown;
            /** @description The signed-in user, or null for a key not created by a user. */
            user: unknown;
            /** @description True for a server operator. */
            is_admin: boolean;
            /** @description True for a console user who still has to create a workspace. */
            needs_onboarding: boolean;
        };
        Health: {
            /** @description `ok` when the service is up. */
            status: string;
            /**
             * @description Whether account creation is open (`SERVICE_SIGNUP`).
             * @enum {string}
             */
            signup: "open" | "closed";
            /** @description The identity provider client id for console sign-in, or null when not configured. */
            idp_client_id: string | null;
            /** @description The identity provider's OpenID Connect authorization endpoint the console's sign-in button navigates to (`SERVICE_IDP_AUTHORIZATION_URL`), or null when `idp_client_id` is null. */
            idp_authorization_url?: string | null;
            /** @description Where the Python client wheel can be downloaded, or null. */
            client_wheel: string | null;
            /** @description World-workers that answered the scheduler's last probe. The answer is a view each gateway keeps for one second. */
            workers_up?: number;
            /** @description Registered world-workers. */
            workers_total?: number;
            /** @description Each worker with its id, status, capacity and load: only for an operator's console session, in place of the two counts. */
            workers?: components["schemas"]["UnspecifiedObject"][];
        };
        ApplicationCreate: {
            name: components["schemas"]["Name"];
            source: components["schemas"]["ApplicationSource"];
            images?: components["schemas"]["ImagePins"];
            /**
             * @description Rules the agent must follow, plain words.
             * @default
             */
            policies: string;
            /** @default  */
            notes: string;
            /**
             * @default source
             * @enum {string}
             */
            connection_mode: "source";
        };
        /**
         * @description Where the application's source comes from. `git`: a repository at a full commit id
         *     (`url` and `commit` required; `ref` is a note of where the commit came from).
         *     `local_path`: a folder inside the server's `SERVICE_SOURCE_ROOTS`. `upload`: an
         *     archive sent afterwards to `POST /v1/applications/{app_id}/source`.
         */
        ApplicationSource: components["schemas"]["GitSource"] | components["schemas"]["LocalPathSource"] | components["schemas"]["UploadSource"];
        GitSource: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "GitSource";
            /**
             * @description An `https://` address or `git@<host>:<path>`. `file://` addresses are also
             *     accepted, for self-hosted installs that build from repositories on the server's
             *     disk. The host must be public: loopback, private and link-local addresses (a
             *     host written as one is refused here with 422; a name resolving to one fails the
             *     build's fetch) are refused unless the operator allows them
             *     (SERVICE_GIT_ALLOW_PRIVATE).
             */
            url: string;
            /** @description Branch or tag, a note of where the commit came from. */
            ref?: string;
            /** @description Full commit id, 40 or 64 lowercase hexadecimal characters. */
            commit: string;
        };
        LocalPathSource: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "LocalPathSource";
            /** @description A folder inside the server's configured source roots (`SERVICE_SOURCE_ROOTS`). */
            path: string;
        };
        UploadSource: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "UploadSource";
        };
        /** @description Service name to pinned image `image:tag@sha256:<digest>`. */
        ImagePins: {
            [key: string]: string;
        };
        Application: {
            id: string;
            name: string;
            source: {
                /** @enum {string} */
                kind?: "git" | "local_path" | "upload";
                url?: string;
                ref?: string;
                commit?: string;
                path?: string;
            };
            images?: {
                [key: string]: string;
            } | null;
            policies?: string;
            notes?: string;
            connection_mode: string;
            created_at: components["schemas"]["Timestamp"];
        };
        SourceUpload: {
            /**
             * Format: binary
             * @description A .tar.gz archive of the source.
             */
            file: string;
        };
        WorldBuildCreate: {
            application_id: components["schemas"]["Id"];
            /** @description Model chain for the build instead of the server default. */
            model?: string;
            /** @description Model chain of the customer in this version's episodes (recorded in the manifest as customer.simulator and in the content hash); builtin:scripted for the scripted customer. Absent, the world's own setting or the server default. */
            customer_model?: string;
            /** @description Model chain judging told and policy checks in this version's episodes (recorded in the manifest as judge and in the content hash). Absent, the world's own setting or the server default. */
            judge_model?: string;
            budget_usd?: components["schemas"]["BudgetUsd"];
            /**
             * @description Approve jobs that pass validation; otherwise they wait.
             * @default true
             */
            auto_approve: boolean;
            /** @default 8 */
            scenario_target: number;
            /** @default 2 */
            max_repair_rounds: number;
            /**
             * @description Replay each job to prove the same result twice.
             * @default true
             */
            check_determinism: boolean;
        };
        WorldBuildAccepted: {
            job_id: string;
            world_id: string;
            world_version_id: string;
            version: number;
        };
        JobAccepted: {
            job_id: string;
        };
        /**
         * @description A job ends as `succeeded`, `failed` or `cancelled`.
         * @enum {string}
         */
        JobStatus: "queued" | "running" | "paused" | "succeeded" | "failed" | "cancelled";
        Job: {
            id: string;
            kind: string;
            status: components["schemas"]["JobStatus"];
            attempts: number;
            spent_usd: number;
            budget_usd: number | null;
            completed_phases: string[];
            /** @description Null until the job has a result. For an improvement job it names the new profile version and the reason for each change. */
            result: unknown;
            /** @description Why the job failed, or null. */
            error: string | null;
            pause_requested?: boolean;
            cancel_requested?: boolean;
        };
        Command: {
            /** @enum {string} */
            command: "pause" | "resume" | "stop" | "retry";
        };
        JobCommandAnswer: {
            status: components["schemas"]["JobStatus"];
            pause_requested: boolean;
            cancel_requested: boolean;
        };
        WorldVersion: {
            id?: string;
            world_id?: string;
            version?: number;
            status?: string;
            /** @description Services, roles and tools. */
            manifest?: Record<string, unknown>;
            /** @description Inner fields not named by the interface spec. */
            validation_report?: unknown;
            /** @description Inner fields not named by the interface spec. */
            provenance?: unknown;
            /** @description Stable for the same pinned application and options (CLARIFICATIONS.md 7). */
            world_content_hash?: string;
        };
        Scenario: {
            id?: string;
            /** @enum {string} */
            split?: "train" | "dev" | "holdout";
            status?: string;
            specification?: Record<string, unknown>;
            /** @description Inner fields not named by the interface spec. */
            validation_report?: unknown;
        };
        ScenarioCreate: {
            /** @description The scenario's specification (inner keys not named by the interface spec). Free-form, bounded by `x-json-limits` (32 levels, 10,000 values in the body). */
            scenario: Record<string, unknown>;
        };
        AgentProfileCreate: {
            name: components["schemas"]["Name"];
            /**
             * @description Agent instructions; empty uses the platform default.
             * @default
             */
            system_prompt: string;
            /** @description Tool name to extra text, appended to that tool's description. Keys are tool names (a letter, then letters, digits, `_` or `-`; at most 64 characters); other keys answer 422. */
            tool_guidance?: {
                [key: string]: string;
            };
            /** @description Model chain for this agent instead of the server default. */
            model?: string;
            /** @default 0.2 */
            temperature: number;
            /** @default 25 */
            max_turns_per_actor: number;
            /**
             * @description `external`: the caller sends the actions.
             * @default llm
             * @enum {string}
             */
            driver: "llm" | "external";
        };
        AgentProfile: {
            id: string;
            name: string;
            version: number;
            /** @description `<name>@v<N>`, as run summaries name the profile. */
            label?: string;
            system_prompt?: string;
            tool_guidance?: {
                [key: string]: string;
            } | null;
            model?: string | null;
            temperature?: number;
            max_turns_per_actor?: number;
            /** @enum {string} */
            driver?: "llm" | "external";
        };
        EvaluationCreate: {
            world_version_id: components["schemas"]["Id"];
            /** @description One or more profiles; all get the same jobs. */
            profile_ids: components["schemas"]["Id"][];
            /**
             * @default [
             *       "train",
             *       "dev",
             *       "holdout"
             *     ]
             */
            splits: ("train" | "dev" | "holdout")[];
            /** @description Only these jobs instead of whole splits. */
            scenario_ids?: components["schemas"]["Id"][];
            /**
             * @description Attempts per job per agent.
             * @default 2
             */
            repeats: number;
            /**
             * @description Adds one refused change and one repeated request to every episode.
             * @default true
             */
            default_stress: boolean;
            budget_usd?: components["schemas"]["BudgetUsd"];
            max_episode_cost_usd?: components["schemas"]["BudgetUsd"];
        };
        RunStarted: {
            run_id: string;
            job_id: string;
            /** @description How many episodes the run holds. */
            episodes: number;
            /** @description How many shard jobs the run consists of. */
            shards: number;
            /** @description Set when the run waits for quiet hours. */
            starts_at?: components["schemas"]["Timestamp"] | null;
        };
        RunSummary: {
            /** @description One entry per agent, keyed `<name>@v<N>`. Besides its scores, each carries `coverage` (an addition beside the spec; docs/scoring.md, Coverage and flags): its planned slots by where they ended. */
            profiles?: {
                [key: string]: {
                    coverage?: components["schemas"]["SlotCoverage"];
                    /** @description An addition beside the spec (docs/scoring.md, Statistics): the intervals of this block given by the conservative small-sample method (fewer than 30 scenarios: Clopper-Pearson over scenarios, coverage at least 95%); each `by_split` block carries its own. */
                    conservative_ci?: ("mean_reward_ci" | "success_rate_ci" | "pass_at_k_ci")[];
                };
            };
            /** @description An addition beside the spec (docs/scoring.md, Coverage and flags): profiles whose rate of unscored slots, or of their own `agent_error` slots, stands out from the run's other profiles on the same scenarios. */
            flags?: components["schemas"]["OutlierFlag"][];
        };
        /** @description A profile's planned slots, scored or unscored by cause; `scored` and the `unscored` counts add up to `planned`. */
        SlotCoverage: {
            /** @description Slots the run planned for the profile (scenarios x repeats). */
            planned: number;
            /** @description Slots with a score, those counted against the agent included. */
            scored: number;
            /** @description Scored slots the agent failed by its own doing, by termination. */
            against_agent: {
                agent_error: number;
                external_timeout: number;
            };
            /** @description Slots with no score, by cause. */
            unscored: {
                not_run_yet: number;
                cancelled: number;
                /** @description Every attempt failed for something not the agent's; its re-runs ran out. */
                environment_error: number;
                /** @description Only an unjudged policy check is open: waits for the run's pinned judge. */
                awaiting_judge: number;
                customer: number;
                checks: number;
            };
            /** @description scored / planned; null with nothing planned. */
            rate: number | null;
            statement: string;
        };
        OutlierFlag: {
            profile: string;
            /** @enum {string} */
            kind: "unscored" | "agent_error";
            count: number;
            planned: number;
            /** @description Share of the profile's ended slots of this kind. */
            rate: number;
            /** @description The same share over the run's other profiles; null when it has none. */
            others_rate: number | null;
            statement: string;
        };
        Run: {
            run_id: string;
            /** @description A run ends as `finished`, `failed` or `cancelled`. */
            status: string;
            /** @description The configuration the run was started with. */
            config?: Record<string, unknown>;
            summary: components["schemas"]["RunSummary"];
            /** @description The customer and judge models every episode of the run uses, with their prices, pinned when the run was created (docs/runs.md, Pinned simulators); null for runs stored before simulators were pinned. */
            simulators?: components["schemas"]["RunSimulators"] | null;
        };
        PinnedSimulator: {
            /** @description The model chain (comma-separated); `builtin:scripted` for the scripted customer, null for no judge. */
            model: string | null;
            /**
             * @description Where the model came from.
             * @enum {string}
             */
            from: "world_version" | "server_default" | "none";
            /** @description Each model of the chain with its price (USD per million tokens) when the run was created. */
            prices: {
                model?: string;
                input_per_mtok?: number;
                output_per_mtok?: number;
                source?: string;
                as_of?: string;
            }[];
        };
        RunSimulators: {
            customer: components["schemas"]["PinnedSimulator"];
            judge: components["schemas"]["PinnedSimulator"];
        };
        EpisodeListItem: {
            id: string;
            /** @description The job the episode attempts. */
            scenario: unknown;
            /** @enum {string} */
            split: "train" | "dev" | "holdout";
            /** @description `<name>@v<N>`. */
            profile: string;
            status: string;
            reward: number | null;
            termination: string | null;
            /** @description Everything the episode spent on models (the agent, the customer simulator and the judges). */
            cost_usd: number;
            /** @description Who spent `cost_usd`. */
            cost_breakdown?: {
                agent?: number;
                customer?: number;
                judges?: number;
            };
            /** @description Tokens the episode used. */
            tokens: unknown;
            oracle: components["schemas"]["Oracle"] | null;
        };
        Comparison: {
            world_version_id: string;
            world_content_hash: string;
            /** @description Run summary per run id. */
            runs: {
                [key: string]: components["schemas"]["RunSummary"];
            };
            /** @description Which scenarios are compared and which are left out (docs/runs.md, Compare). */
            scenario_set?: {
                /**
                 * @description `same`: one pinned set; `intersection`: the sets differ and only the scenarios both runs ran with equal specifications are compared (the summaries in `runs` count those only).
                 * @enum {string}
                 */
                mode: "same" | "intersection";
                /** @description Scenarios compared. */
                scenarios: number;
                /** @description Scenario ids left out of the comparison (empty when `mode` is `same`). */
                left_out: string[];
                /** @description The pinned set's hash (`same`). */
                scenario_set_hash?: string;
                /** @description Scenario ids compared (`intersection`). */
                compared?: string[];
                /** @description Per run id, the scenario ids only that run ran (`intersection`). */
                only_in?: {
                    [key: string]: string[];
                };
                /** @description Scenario ids both runs ran with different specifications, left out (`intersection`). */
                changed?: string[];
                /** @description Per run id, its pinned set's hash (`intersection`). */
                scenario_set_hashes?: {
                    [key: string]: string;
                };
                /** @description What was compared and left out, in one sentence (`intersection`). */
                note?: string;
            };
            /** @description The customer and judge both runs used (docs/runs.md, Compare). Runs with different customer or judge models are compared over their shared scenarios (clarification 11) with `same: false`, `difference: models` and a `caveat` naming both runs' simulators; `same: false` with `difference: prices` flags runs whose models agree at different prices; `same: null` (`difference: unknown`) a run stored before simulators were pinned. */
            simulators?: {
                same?: boolean | null;
                /** @enum {string} */
                difference?: "models" | "prices" | "unknown";
                customer?: components["schemas"]["PinnedSimulator"];
                judge?: components["schemas"]["PinnedSimulator"];
                /** @description Per run id, its pinned simulators (when not the same). */
                by_run?: Record<string, unknown>;
                note?: string;
                /** @description An addition beside the spec: with `difference: models`, the two runs' customer and judge models, named (docs/runs.md, Compare). */
                caveat?: string;
            };
            /** @description An addition beside the spec (docs/scoring.md, Comparing): what a reader must know before trusting the comparisons, in words; today the differing simulators of two runs (`simulators.caveat`). Empty when there is none. */
            caveats?: string[];
            /** @description Paired comparisons of profiles. */
            comparisons?: components["schemas"]["PairedComparison"][];
        };
        /** @description One profile against another over the scenarios both scored (docs/scoring.md, Comparing). */
        PairedComparison: {
            /** @description `run_id` and `profile` (label) of side A. */
            a?: Record<string, unknown>;
            /** @description `run_id` and `profile` (label) of side B. */
            b?: Record<string, unknown>;
            /** @description Scenarios paired. */
            scenarios?: number;
            mean_reward_a?: number | null;
            mean_reward_b?: number | null;
            /** @description Mean per-scenario difference of reward, B − A. */
            difference?: number | null;
            /** @description 95% interval of `difference`: the sign-flip test inverted (the shifts it does not reject), so it excludes 0 exactly when `p_value` <= 0.05; the whole scale [-1, 1] below 6 paired scenarios; null with none. */
            difference_ci?: number[] | null;
            /** @description The paired test used. */
            test?: string;
            p_value?: number | null;
            /** @description Whether the permutation test enumerated every sign flip (else it sampled them). */
            exact?: boolean | null;
            /** @description About the smallest difference this many scenarios could detect with 80% power; null below 6 paired scenarios, when every difference was the same, or when it would exceed the reward scale (1). */
            minimum_detectable_difference?: number | null;
            /** @description Scenario ids whose mean reward rose from A to B. */
            improved?: string[];
            /** @description Scenario ids whose mean reward fell from A to B. */
            regressed?: string[];
            unchanged?: number;
            /** @description An addition beside the spec: the smallest p-value this many paired scenarios can give (2 / 2^n); above 0.05 no verdict is possible. */
            smallest_p?: number | null;
            /** @description An addition beside the spec: how many paired scenarios would show a difference (docs/scoring.md, Comparing). */
            scenarios_needed?: {
                /** @description The difference planned for, the observed one (at least 0.05) or 0.1. */
                difference?: number;
                /** @description Paired scenarios that would detect it with 80% power at the observed spread; null when the spread is unknown. */
                scenarios?: number | null;
                /** @description Fewest paired scenarios that can show any difference (6). */
                minimum?: number;
            } | null;
            /** @description An addition beside the spec (docs/scoring.md, Comparing, Coverage): the planned slots of the scenarios both sides planned that either side did not score, and the difference bounded with them counted against B (`worst_case`: failures for B, successes for A) and for B (`best_case`); null bounds when every slot scored. */
            coverage?: {
                planned_scenarios?: number;
                paired_scenarios?: number;
                /** @description Scenario ids left out of the pairing because a side scored none of their slots. */
                dropped_scenarios?: string[];
                /** @description `a` and `b`: planned slots of each side. */
                planned_slots?: Record<string, unknown>;
                /** @description `a` and `b`: scored slots of each side. */
                scored_slots?: Record<string, unknown>;
                /** @description Each unscored slot: `side`, `run_id`, `profile`, `scenario_id`, `repeat` and `cause` (`not_run_yet`, `cancelled`, `environment_error`, `awaiting_judge`, `customer` or `checks`, as the summary's coverage names them). */
                dropped?: Record<string, unknown>[];
                worst_case?: components["schemas"]["CoverageBound"] | null;
                best_case?: components["schemas"]["CoverageBound"] | null;
                note?: string | null;
            };
            /** @description An addition beside the spec: sides whose share of unscored or agent-error slots stands out (at least 25%, or 10 points above the other side), with `run_id`, `profile`, `kind` (`unscored` or `agent_error`), `count`, `planned`, `rate`, `other_side_rate` and a `note`. */
            flags?: Record<string, unknown>[];
            /**
             * @description `not_enough_data` also when fewer than 6 scenarios are paired (no sign-flip test can reach p <= 0.05); with unscored slots a side is better only when `coverage` bounds agree.
             * @enum {string}
             */
            verdict?: "b_better" | "a_better" | "within_noise" | "not_enough_data";
            /** @description The verdict in words, with the interval, the test and the minimum detectable difference. */
            statement?: string;
            /** @description Each paired scenario's `scenario_id`, mean rewards `a` and `b`, and their `difference` (b − a). */
            per_scenario?: Record<string, unknown>[];
        };
        /** @description The paired comparison with every unscored slot counted one way (PairedComparison `coverage`). */
        CoverageBound: {
            scenarios?: number;
            difference?: number;
            difference_ci?: number[];
            p_value?: number;
            /** @enum {string} */
            verdict?: "b_better" | "a_better" | "within_noise" | "not_enough_data";
        };
        ImprovementCreate: {
            profile_id: components["schemas"]["Id"];
            run_id: components["schemas"]["Id"];
            /** @description Model chain that writes the next version from the train and dev evidence; builtin:rules for the deterministic rules. Absent, SERVICE_IMPROVEMENT_MODEL when the project has a model endpoint, else the rules. */
            model?: string;
            /** @description The job stops itself when its model calls reach this spend; the dev check's run gets what is left as its budget. */
            budget_usd?: number;
            /**
             * @description Run the candidate on the source run's dev scenarios before proposing it and report both dev scores.
             * @default false
             */
            check_on_dev: boolean;
        };
        Oracle: {
            /** @description Inner shape not named by the interface spec. */
            check_results?: unknown;
            /** @description Inner shape not named by the interface spec. */
            duplicate_effects?: unknown;
            /** @description Inner shape not named by the interface spec. */
            false_completion?: unknown;
            /** @description Inner shape not named by the interface spec. */
            environment_error?: unknown;
        };
        EpisodeRecord: {
            id?: string;
            /** @description `running` while it runs. */
            status: string;
            /** @description How it ended, e.g. `external_timeout` or `budget`; null while running. `agent_error` is an addition beside the spec: the agent's model erred or refused, or its call crashed the world; it scores 0 (docs/scoring.md). */
            termination: string | null;
            reward: number | null;
            /** @description The job the episode attempts. */
            scenario: unknown;
            oracle: components["schemas"]["Oracle"] | null;
            actions: unknown[];
            messages: unknown[];
        };
        /**
         * @description `customer_message`: `text`. `goal_change`: `text` and `goal_version`. `fault`: `tool`,
         *     `fault_mode` (how the next call of the tool fails) and `count` (calls affected).
         *     `revoke_tool` and `grant_tool`: `tool` and `role`.
         */
        InterventionCreate: {
            /** @enum {string} */
            kind: "customer_message" | "goal_change" | "fault" | "revoke_tool" | "grant_tool";
            text?: string;
            goal_version?: number;
            tool?: string;
            /** @enum {string} */
            fault_mode?: "drop_response" | "error" | "timeout_before" | "rate_limit";
            role?: string;
            /** @default 1 */
            count: number;
        };
        ChatMessage: {
            role: string;
            content: string;
        };
        ToolSpec: {
            /** @enum {string} */
            type: "function";
            function: {
                name: string;
                description: string;
                parameters: Record<string, unknown>;
            };
        };
        Turn: {
            data: {
                /** @description The actor that must act. */
                actor: string;
                /** @description Only what arrived since that actor's last action; the first turn holds the role's instructions. */
                new: components["schemas"]["ChatMessage"][];
                /** @description Version of the customer's request seen. */
                goal_version_observed: number;
                tools: components["schemas"]["ToolSpec"][];
            };
        };
        Observation: {
            episode_status: string;
            awaiting_action: boolean;
            /** @description The waiting turn; null when none waits. */
            turn?: components["schemas"]["Turn"] | null;
        };
        ActionCreate: {
            /** @description The actor the turn names. */
            actor: string;
            /** @description One of the tools the turn offers. */
            tool: string;
            /** @description The tool's arguments. Free-form, bounded by `x-json-limits` (32 levels, 10,000 values in the body). */
            args?: Record<string, unknown>;
            /** @description Names one action, chosen by the caller, different for every action. */
            idempotency_key: string;
        };
        ActionAccepted: {
            event_id: number;
            /** @description True when the same action with the same key was sent before. */
            duplicate?: boolean;
        };
        ActionResult: {
            /** @enum {string} */
            status: "pending" | "done";
            /** @description The result, once `done`. */
            result?: unknown;
        };
        Event: {
            /** @description Increasing number; pass the last seen as `cursor` to continue. */
            event_id: number;
            /** @description What happened, e.g. `compiler.phase.started`, `action.succeeded`, `goal.revised`, `episode.finished`, `stream.end`. */
            type: string;
            summary: string;
            created_at: components["schemas"]["Timestamp"];
            /** @description Id of the server job or run the event belongs to. */
            stream: string;
            episode_id?: string | null;
            actor_id?: string | null;
            goal_version?: number | null;
            data?: Record<string, unknown>;
        };
        DatasetExportCreate: {
            run_ids: components["schemas"]["Id"][];
            /**
             * @description Holdout episodes cannot be exported.
             * @default [
             *       "train"
             *     ]
             */
            splits: ("train" | "dev")[];
            /** @default true */
            verified_only: boolean;
            /**
             * @description `openai_chat`: one line per actor of each episode with `messages` and `tools` (OpenAI chat fine-tuning).
             * @default crucible
             * @enum {string}
             */
            format: "crucible" | "openai_chat";
        };
        Usage: {
            /** @description The month, `YYYY-MM`. */
            month: string;
            spent_usd: number;
            /** @description Spend per kind of work. */
            by_kind: {
                [key: string]: number;
            };
            /** @description The monthly model-spend allowance; null means no limit. */
            allowance_usd: number | null;
            /** @description What is left of the allowance; null when there is no limit. */
            left_usd: number | null;
            /** @description When the allowance renews. */
            renews: unknown;
        };
        Billing: {
            /** @description The plan and its limits. */
            plan: Record<string, unknown>;
            usage: components["schemas"]["Usage"];
            month: string;
            /** @description When the plan renews. */
            renews: unknown;
            /** @description The quiet hours (UTC) runs may wait for. */
            quiet_hours_utc: unknown;
            /** @description When the next quiet hours start. */
            next_quiet_start: unknown;
            /** @description The subscription with the payment provider, or null. */
            subscription: unknown;
        };
        CheckoutCreate: {
            /** @enum {string} */
            item: "pro_monthly" | "pro_yearly" | "team_monthly" | "team_yearly" | "episodes_1000" | "build_1";
            /** @default 1 */
            quantity: number;
        };
        BillingChange: {
            /** @enum {string} */
            item: "pro_monthly" | "pro_yearly" | "team_monthly" | "team_yearly";
        };
        ProviderPage: {
            /** @description The payment provider's page to open. */
            url?: string;
        };
        ApiKeyCreate: {
            name: components["schemas"]["Name"];
            /**
             * @description Without it, `admin` (CLARIFICATIONS.md 4).
             * @default [
             *       "admin"
             *     ]
             */
            scopes: ("admin" | "read" | "write" | "evaluator" | "agent")[];
        };
        ApiKey: {
            id?: string;
            name: string;
            /** @description The 8 characters after `svc_` in the key text. */
            prefix: string;
            scopes: components["schemas"]["Scopes"];
            /** @description Last use, or null when never used. */
            last_used_at: components["schemas"]["Timestamp"] | null;
            created_at?: components["schemas"]["Timestamp"];
        };
        ApiKeyCreated: {
            id?: string;
            name?: string;
            prefix?: string;
            scopes?: components["schemas"]["Scopes"];
            /** @description The key text `svc_<8-char prefix>_<secret>`, shown this once. */
            api_key: string;
            note: string;
        };
        CredentialCreate: {
            name: components["schemas"]["Name"];
            /** @enum {string} */
            kind: "model_provider" | "application" | "training";
            /** @description Name of an environment variable the runner reads. Only variables the operator allows (`SERVICE_CREDENTIAL_VARS`, default `CRUCIBLE_AGENT_*`) may be named, never the service's own (model keys, `STRIPE_*`, `SERVICE_*`, database and engine URLs); others answer 422 naming what is allowed. */
            env_var: string;
        };
        Credential: {
            id?: string;
            name: string;
            /** @enum {string} */
            kind: "model_provider" | "application" | "training";
            env_var: string;
        };
        Signup: {
            name: components["schemas"]["Name"];
            email: components["schemas"]["Email"];
            /** Format: password */
            password: string;
        };
        Login: {
            email: components["schemas"]["Email"];
            /** Format: password */
            password: string;
        };
        SetPassword: {
            /** @description The token of the link (after `#token=`). */
            token: string;
            /** Format: password */
            password: string;
        };
        ProjectCreate: {
            name: string;
        };
        SessionProject: {
            project_id: string;
        };
        InvitationCreate: {
            email: components["schemas"]["Email"];
            /**
             * @default member
             * @enum {string}
             */
            role: "member" | "admin";
        };
        MemberUpdate: {
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        InvitationAccept: {
            token: string;
        };
        IdpLogin: {
            /** @description An identity provider ID token. */
            credential: string;
            /**
             * Format: password
             * @description The password of an existing account with the token's e-mail address, to prove it and link it to the identity-provider account (being signed in to it also proves it).
             */
            password?: string;
            /** @description The `state` the provider answered with; when sent, it must be the one `POST /v1/auth/idp/start` gave this browser. */
            state?: string;
        };
        WorkspaceCreate: {
            organization: components["schemas"]["Name"];
            /** @default default */
            project: string;
        };
        CliLoginCreate: {
            /**
             * @description The terminal's name; the approved key is named after it.
             * @default
             */
            client: string;
        };
        CliLoginStarted: {
            /** @description The confirmation code the terminal shows. */
            user_code: string;
            /** @description The secret the terminal polls with. */
            device_code: string;
            verification_url: string;
            /** @description Seconds until the request expires. */
            expires_in: number;
            /** @description Seconds to wait between polls. */
            interval: number;
        };
        CliLoginPoll: {
            device_code: string;
        };
        CliLoginPollAnswer: {
            /** @enum {string} */
            status: "pending" | "approved" | "denied" | "expired";
            /** @description The new key, on the first poll after approval only. */
            api_key?: string;
        };
        OrganizationUpdate: {
            /**
             * @description The plan to apply without payment; null removes the override.
             * @enum {unknown}
             */
            plan_override?: "free" | "pro" | "team" | "enterprise" | "internal" | null;
            /** @description Limit name to value; null for a single limit means no limit; `quiet_hours_only` takes true or false. */
            limits_override?: {
                [key: string]: number | boolean | null;
            };
        };
        CreditsCreate: {
            /** @enum {string} */
            kind: "episodes" | "builds";
            quantity: number;
            /** @default  */
            note: string;
        };
        TrainingJobCreate: {
            world_version_id: components["schemas"]["Id"];
            /** @default Qwen/Qwen2.5-7B-Instruct */
            base_model: string;
            /** @default 2 */
            rounds: number;
            /** @default 4 */
            rollouts_per_scenario: number;
            /** @default http://127.0.0.1:8000/v1 */
            serve_base_url: string;
            /**
             * @default a100-80gb
             * @enum {string}
             */
            hosted_gpu: "a100-80gb" | "h100-80gb";
            budget_usd?: components["schemas"]["BudgetUsd"];
        };
        TrainingComingSoon: {
            /** @enum {string} */
            status: "coming_soon";
            /** @description Says that training is coming soon. */
            detail: string;
        };
    };
    responses: {
        /** @description A failing request. 422 lists each wrong field. */
        Error: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Server-sent events, held open until the work ends. Each event is one JSON object
         *     (schema `Event`) on a `data:` line, with its `event_id` as the SSE `id`. A comment
         *     line (`: heartbeat`) keeps the connection open (SERVICE_SSE_HEARTBEAT_MS, 15 s).
         *     The stream ends with an event of type `stream.end`; docs/events.md lists every type.
         */
        EventStream: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/event-stream": string;
            };
        };
    };
    parameters: {
        /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
        PageCursor: string;
        /** @description Items on the page; default 100, at most 500. */
        PageLimit: number;
        /** @description Episodes on the page; default 100, at most 1000. */
        EpisodePageLimit: number;
        AppId: string;
        JobId: string;
        WvId: string;
        ScId: string;
        ProfId: string;
        RunId: string;
        EpId: string;
        /** @description The idempotency key the action was sent with. */
        ActionKey: string;
        ArtId: string;
        KeyId: string;
        MemberUserId: string;
        InvId: string;
        CredId: string;
        /** @description The confirmation code (`user_code`) the terminal shows. */
        Code: string;
        OrgId: string;
        TjId: string;
        /** @description The last `event_id` seen; the stream continues after it. A reconnecting EventSource may send the `Last-Event-ID` header instead; when both are sent the larger wins. */
        StreamCursor: number;
    };
    requestBodies: never;
    headers: {
        /**
         * @description Present when more items follow: `<URL of the next page>; rel="next"` (RFC 8288), the
         *     same path and query with `cursor` set. The last page has none. The order is stable
         *     while items are added: a page never repeats or skips an item listed before.
         */
        NextPage: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    get_me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Identity of the key or console session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Identity"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The service is up. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_applications: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The project's applications. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_application: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApplicationCreate"];
            };
        };
        responses: {
            /** @description The application record. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Application"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    import_catalog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The applications were registered. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_application: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                app_id: components["parameters"]["AppId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The application. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Application"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    delete_application: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                app_id: components["parameters"]["AppId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The application was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    upload_application_source: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                app_id: components["parameters"]["AppId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["SourceUpload"];
            };
        };
        responses: {
            /** @description The archive was stored. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_world_build: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorldBuildCreate"];
            };
        };
        responses: {
            /** @description The build job started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorldBuildAccepted"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_jobs: {
        parameters: {
            query?: {
                /** @description Only jobs of this kind. */
                kind?: string;
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Jobs, newest first. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_job: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    command_job: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Command"];
            };
        };
        responses: {
            /** @description The job after the command was recorded. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobCommandAnswer"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_worlds: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Worlds with their versions and status. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_world_version: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Manifest, validation report, provenance and content hash. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorldVersion"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_scenarios: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Jobs with split, status and specification. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Scenario"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_scenario: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScenarioCreate"];
            };
        };
        responses: {
            /** @description Validation of the scenario started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_scenario: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sc_id: components["parameters"]["ScId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Specification and validation report. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Scenario"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    approve_scenario: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sc_id: components["parameters"]["ScId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The scenario was approved. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    reject_scenario: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sc_id: components["parameters"]["ScId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The scenario was rejected. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    validate_world_version: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Model chain of the model agent that plays every fair job without the answer key (provider models with prices; the project's model credential pays). null, no model agent; absent, when the project has a usable model credential, the first priced provider chain of the server's SERVICE_VALIDATION_MODEL, the model the world version was built with, its judge, its customer, the server's SERVICE_DEFAULT_MODEL (`model_from` says which). */
                    model?: string | null;
                    budget_usd?: components["schemas"]["BudgetUsd"];
                };
            };
        };
        responses: {
            /** @description Validation started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_agent_profiles: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every version of every profile. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentProfile"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_agent_profile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentProfileCreate"];
            };
        };
        responses: {
            /** @description The stored profile version. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentProfile"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_agent_profile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                prof_id: components["parameters"]["ProfId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The profile version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentProfile"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_evaluation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EvaluationCreate"];
            };
        };
        responses: {
            /** @description The run started (or waits for quiet hours). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunStarted"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_runs: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Runs, newest first. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_run: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: components["parameters"]["RunId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run with status, configuration and summary. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Run"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    command_run: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: components["parameters"]["RunId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Command"];
            };
        };
        responses: {
            /** @description The command was passed on. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_run_episodes: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Episodes on the page; default 100, at most 1000. */
                limit?: components["parameters"]["EpisodePageLimit"];
            };
            header?: never;
            path: {
                run_id: components["parameters"]["RunId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Episode list items. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EpisodeListItem"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    compare_runs: {
        parameters: {
            query: {
                run_a: string;
                run_b?: string;
                /** @description `intersection` (the default; accepted from older clients): runs on different scenario sets are compared over the scenarios both ran. */
                scenarios?: "intersection";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The comparison. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comparison"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_improvement: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ImprovementCreate"];
            };
        };
        responses: {
            /** @description The improvement job started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_episode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The episode record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EpisodeRecord"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_intervention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InterventionCreate"];
            };
        };
        responses: {
            /** @description The intervention was queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    rejudge_episode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Re-judged (a check the judge failed on again stays unjudged). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        episode_id: string;
                        judged: string[];
                        needs_rejudge: boolean;
                        reward: number | null;
                        success: boolean;
                        failure?: unknown;
                        check_results?: unknown[];
                        cost_usd?: number;
                    };
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_observation: {
        parameters: {
            query?: never;
            header?: {
                /** @description `wait=N`: hold the answer up to N seconds (at most 30) for a turn to wait for the action, or the episode to end. */
                Prefer?: string;
            };
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The episode's status and the waiting turn, if any. */
            200: {
                headers: {
                    /** @description `wait=N` when the request asked to wait: the seconds it was held at most. */
                    "Preference-Applied"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Observation"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    post_action: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ActionCreate"];
            };
        };
        responses: {
            /** @description The action was accepted. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActionAccepted"];
                };
            };
            /**
             * @description `detail` is one of: `episode is not running`; `actor does not match the current
             *     external turn`; `current external turn already has an action`; `idempotency key
             *     already used for a different action`; `episode does not use an external agent`.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description A wrong field (list `detail`), or `detail` is `tool is not offered in the current
             *     external turn`.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_action_result: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ep_id: components["parameters"]["EpId"];
                /** @description The idempotency key the action was sent with. */
                key: components["parameters"]["ActionKey"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The action's status and, once done, its result. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActionResult"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    stream_job_events: {
        parameters: {
            query?: {
                /** @description The last `event_id` seen; the stream continues after it. A reconnecting EventSource may send the `Last-Event-ID` header instead; when both are sent the larger wins. */
                cursor?: components["parameters"]["StreamCursor"];
            };
            header?: never;
            path: {
                job_id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EventStream"];
            default: components["responses"]["Error"];
        };
    };
    stream_run_events: {
        parameters: {
            query?: {
                /** @description The last `event_id` seen; the stream continues after it. A reconnecting EventSource may send the `Last-Event-ID` header instead; when both are sent the larger wins. */
                cursor?: components["parameters"]["StreamCursor"];
            };
            header?: never;
            path: {
                run_id: components["parameters"]["RunId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EventStream"];
            default: components["responses"]["Error"];
        };
    };
    get_events_page: {
        parameters: {
            query?: {
                /** @description Events after this `event_id`. */
                cursor?: number;
                /** @description Events on the page; at most 1000. */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Id of the server job or run the events belong to. */
                stream: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of events, in `event_id` order. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Event"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_dataset_export: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DatasetExportCreate"];
            };
        };
        responses: {
            /** @description The export started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_bundle: {
        parameters: {
            query?: {
                /** @description Put each service's image archive (docker-archive, pinned by image id and sha256) in the bundle. */
                include_images?: boolean;
            };
            header?: never;
            path: {
                wv_id: components["parameters"]["WvId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle export started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_artifacts: {
        parameters: {
            query?: {
                /** @description Only artifacts of this kind. */
                kind?: string;
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Datasets and bundles. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_artifact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                art_id: components["parameters"]["ArtId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The artifact record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    download_artifact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                art_id: components["parameters"]["ArtId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/gzip": string;
                    "application/octet-stream": string;
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_dashboard: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The overview. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_usage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage fields. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_billing: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Billing fields. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Billing"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    billing_checkout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckoutCreate"];
            };
        };
        responses: {
            /** @description A payment provider checkout page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderPage"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    billing_change: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BillingChange"];
            };
        };
        responses: {
            /** @description The subscription was moved. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    billing_portal: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The provider's customer portal. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderPage"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    billing_sync: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription and top-ups were read back. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    billing_webhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description The provider's signature of the raw body. */
                "Stripe-Signature"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The raw notification body. */
        requestBody: {
            content: {
                "*/*": string;
            };
        };
        responses: {
            /** @description The notification was received. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        received?: boolean;
                    };
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_pricing: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Price and market range per configured model, with sources. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_api_keys: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The project's keys. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_api_key: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiKeyCreate"];
            };
        };
        responses: {
            /** @description The new key, shown this once. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyCreated"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    delete_api_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key was revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_credentials: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Credential references. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_credential: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialCreate"];
            };
        };
        responses: {
            /** @description The credential reference. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Credential"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    delete_credential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                cred_id: components["parameters"]["CredId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The credential reference was removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    auth_signup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Signup"];
            };
        };
        responses: {
            /** @description The account was created and the browser is signed in (the session cookie is set). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    auth_login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Login"];
            };
        };
        responses: {
            /** @description Signed in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    auth_set_password: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SetPassword"];
            };
        };
        responses: {
            /** @description The password is set and the browser signed in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    auth_idp_start: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Started. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        nonce: string;
                        state: string;
                        expires_in: number;
                    };
                };
            };
            default: components["responses"]["Error"];
        };
    };
    auth_idp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IdpLogin"];
            };
        };
        responses: {
            /** @description Signed in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    onboarding_workspace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkspaceCreate"];
            };
        };
        responses: {
            /** @description The organization and project were created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    switch_session_project: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionProject"];
            };
        };
        responses: {
            /** @description The session now acts in that project. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    delete_session: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out; the session cookie is cleared. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_memberships: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The projects. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_project: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProjectCreate"];
            };
        };
        responses: {
            /** @description The project, with the caller's role in it. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_invitations: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The open invitations. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_invitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvitationCreate"];
            };
        };
        responses: {
            /** @description The invitation and its link. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    accept_invitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvitationAccept"];
            };
        };
        responses: {
            /** @description Accepted; the session acts in the project. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_members: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The members. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    update_member: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: components["parameters"]["MemberUserId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemberUpdate"];
            };
        };
        responses: {
            /** @description The member with the new role (`changed` false when it already had it). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    delete_member: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: components["parameters"]["MemberUserId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_audit_events: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The audit events. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    delete_invitation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                inv_id: components["parameters"]["InvId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Withdrawn. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_cli_login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CliLoginCreate"];
            };
        };
        responses: {
            /** @description The codes to show and to poll with. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CliLoginStarted"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    poll_cli_login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CliLoginPoll"];
            };
        };
        responses: {
            /** @description The sign-in's status. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CliLoginPollAnswer"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_cli_login: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The confirmation code (`user_code`) the terminal shows. */
                code: components["parameters"]["Code"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    decide_cli_login: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The confirmation code (`user_code`) the terminal shows. */
                code: components["parameters"]["Code"];
                decision: "approve" | "deny";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The decision was recorded. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    admin_list_organizations: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every workspace with plan, owner and this month's use. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    admin_list_workers: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The world-workers. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    admin_drain_worker: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                worker_id: string;
                /** @description `drain`: placement skips the worker and its running episodes finish; `undrain`: it takes episodes again. */
                action: "drain" | "undrain";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The worker as it is now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    admin_update_organization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                org_id: components["parameters"]["OrgId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OrganizationUpdate"];
            };
        };
        responses: {
            /** @description The workspace after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    admin_add_credits: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                org_id: components["parameters"]["OrgId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreditsCreate"];
            };
        };
        responses: {
            /** @description The credits were added. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    list_training_jobs: {
        parameters: {
            query?: {
                /** @description Where the page starts, as given in the previous page's `Link` header (`rel="next"`); opaque. Leave out for the first page. A cursor this list did not make answers 422. */
                cursor?: components["parameters"]["PageCursor"];
                /** @description Items on the page; default 100, at most 500. */
                limit?: components["parameters"]["PageLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An empty list. */
            200: {
                headers: {
                    Link: components["headers"]["NextPage"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ObjectList"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    create_training_job: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TrainingJobCreate"];
            };
        };
        responses: {
            /** @description Training is coming soon. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrainingComingSoon"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    get_training_job: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tj_id: components["parameters"]["TjId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The training job. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnspecifiedObject"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
}
