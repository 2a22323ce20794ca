/** The document store's collection names, in one place: `Collections.runEpisodes` is `"run_episodes"`. */
export const Collections = {
  organizations: 'organizations',
  projects: 'projects',
  users: 'users',
  memberships: 'memberships',
  apiKeys: 'api_keys',
  sessions: 'sessions',
  credentials: 'credentials',
  cliLogins: 'cli_logins',
  passwordLinks: 'password_links',
  invitations: 'invitations',
  /** Changes to a project's people (accounts/members.ts). */
  auditEvents: 'audit_events',
  applications: 'applications',
  jobs: 'jobs',
  worlds: 'worlds',
  worldVersions: 'world_versions',
  scenarios: 'scenarios',
  profiles: 'agent_profiles',
  runs: 'runs',
  episodes: 'episodes',
  runEpisodes: 'run_episodes',
  runSpend: 'run_spend',
  /** Written by versions before 2026-11-27 (an episode's actions are in its state now); nothing reads it. */
  actions: 'actions',
  events: 'events',
  artifacts: 'artifacts',
  artifactBlobs: 'artifact_blobs',
  usage: 'usage',
  credits: 'credits',
  sourceArchives: 'source_archives',
  billingSubscriptions: 'billing_subscriptions',
  billingCheckouts: 'billing_checkouts',
  billingEvents: 'billing_events',
  billingSettings: 'billing_settings',
} as const;

export type CollectionName = keyof typeof Collections;

/**
 * The component that owns each collection: it alone declares the collection's record type and
 * exports it with its readers, and every other component reads through those instead of a
 * private copy of the fields it wants (test/unit/collection-owners.test.ts keeps it so).
 */
export const CollectionOwners: Readonly<Record<CollectionName, string>> = {
  organizations: 'accounts',
  projects: 'accounts',
  users: 'accounts',
  memberships: 'accounts',
  apiKeys: 'accounts',
  sessions: 'accounts',
  credentials: 'accounts',
  cliLogins: 'accounts',
  passwordLinks: 'accounts',
  invitations: 'accounts',
  auditEvents: 'accounts',
  applications: 'scheduler',
  jobs: 'scheduler',
  worlds: 'scheduler',
  worldVersions: 'scheduler',
  scenarios: 'scheduler',
  profiles: 'scheduler',
  runs: 'scheduler',
  episodes: 'episode-actor',
  runEpisodes: 'scheduler',
  runSpend: 'scheduler',
  actions: 'episode-actor',
  events: 'core',
  artifacts: 'scheduler',
  artifactBlobs: 'scheduler',
  usage: 'billing',
  credits: 'billing',
  sourceArchives: 'scheduler',
  billingSubscriptions: 'billing',
  billingCheckouts: 'billing',
  billingEvents: 'billing',
  billingSettings: 'billing',
};
