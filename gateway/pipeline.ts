import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import type { OpenAPIBackend } from 'openapi-backend';
import type { Config } from '../core/index.js';
import { NEXT_CURSOR_HEADER, ServiceError, nextLink, type RoleMetrics, ValidationFailedError } from '../core/index.js';
import type { Principal } from '../core/index.js';
import { authorize } from './access.js';
import { compressAnswers } from './compression.js';
import type { Authenticator } from './auth.js';
import { refuseCrossSite } from './csrf.js';
import { bindIdpRequest, secureOver } from './idp-request.js';
import { verifyJsonBounds } from './json-bounds.js';
import { transportOf } from './local-operations.js';
import { accessOf, servedByOf, type ApiOperation } from './openapi.js';
import type { SchedulerClient } from './scheduler-client.js';
import { OperationRouter, type RouteMatch } from './router.js';
import { toFieldProblems } from './validation-errors.js';

/** What a locally answered operation (e.g. an event stream) receives. */
export interface LocalCall {
  operation: ApiOperation;
  principal: Principal | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/** An operation the gateway answers itself instead of dispatching to the scheduler. */
export type LocalHandler = (call: LocalCall, req: Request, res: Response) => Promise<void>;

/**
 * The /v1 pipeline, one Express layer: compress answers (gateway/compression.ts), route by the
 * OpenAPI document, read the body as the operation needs it (gateway/local-operations.ts,
 * TRANSPORT), authenticate, apply the operation's access rule, validate the request (422 lists
 * each wrong field), then hand it to the scheduler over gRPC (or to the gateway's own handler,
 * by `x-served-by`) and write the answer.
 */
export function apiPipeline(opts: {
  api: OpenAPIBackend;
  auth: Authenticator;
  scheduler: SchedulerClient;
  config: Config;
  local: Map<string, LocalHandler>;
  metrics: RoleMetrics;
  /** Called when a request that is not a read has succeeded, before its answer is written. */
  changed?: () => void;
  /** Called after a console session was signed out (`delete_session` answered), with its id. */
  signedOut?: (sessionId: string) => Promise<void>;
}): RequestHandler {
  const { api, auth, scheduler, config, local } = opts;
  const latency = opts.metrics.histogram(
    'crucible_http_request_duration_seconds',
    'Time to answer an API operation (event streams excluded: they last as long as their run)',
    ['operation', 'status'],
  );
  const router = new OperationRouter(api);
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: config.maxUploadBytes, files: 1, fields: 10 },
  }).single('file');
  // verifyJsonBounds refuses a body nested too deep or holding too many values before it is parsed
  const json = express.json({
    limit: config.maxBodyBytes,
    type: ['application/json', 'application/*+json'],
    verify: verifyJsonBounds,
  });
  const text = express.text({ type: () => true, limit: config.maxBodyBytes });

  /** Routes the request once, then reads its body as its operation needs (a route-less request as JSON). */
  const readBody: RequestHandler = (req, res, next) => {
    const route = router.match(req.method, req.baseUrl + req.path);
    res.locals.route = route;
    const needs = route ? transportOf(route.operation.operationId!) : {};
    const signature = needs.rawBody?.signatureHeader;
    if (signature)
      return text(req, res, (err?: unknown) => {
        if (err) return next(err);
        res.locals.dispatchBody = {
          raw: typeof req.body === 'string' ? req.body : '',
          signature: req.get(signature) ?? '',
        };
        next();
      });
    const read = (err?: unknown) => {
      if (err) return next(err);
      if (needs.idpRequestCookie) bindIdpRequest(req, res);
      next();
    };
    // no body at all (most GETs): nothing for the parser to look at
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return read();
    json(req, res, read);
  };

  const answer: RequestHandler = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const path = req.baseUrl + req.path;
      const route = res.locals.route as RouteMatch | null;
      if (!route) {
        const others = router.methodsAt(path);
        if (others.length > 0)
          throw new ServiceError(
            'method_not_allowed',
            `${req.method} is not allowed on ${path}; use ${others.join(' or ')}`,
            { headers: { allow: others.join(', ') } },
          );
        throw new ServiceError('not_found', `no operation at ${req.method} ${path}; see /openapi.json`);
      }
      const { operation } = route;
      const needs = transportOf(operation.operationId!);
      if (!operation.operationId!.startsWith('stream_')) {
        const end = latency.startTimer({ operation: operation.operationId! });
        res.once('finish', () => end({ status: String(res.statusCode) }));
      }
      const rule = accessOf(operation);
      // A `none` operation ignores a stale console cookie, but a key in Authorization that is
      // revoked or invalid is refused on every operation (spec section 5 rule 4).
      const principal =
        rule === 'none'
          ? await auth.authenticate(req).catch((err: unknown) => {
              if (req.headers.authorization !== undefined) throw err;
              return null;
            })
          : await auth.authenticate(req);
      refuseCrossSite(req, needs.setsCookies === true, config);
      authorize(rule, principal);

      const multipart =
        operation.requestBody &&
        'content' in operation.requestBody &&
        operation.requestBody.content['multipart/form-data'];
      if (multipart) await runUpload(upload, req, res);

      // An operation that takes nothing, called with nothing, has nothing to validate.
      const nothingToCheck =
        !operation.parameters?.length && !operation.requestBody && req.body === undefined && !req.url.includes('?');
      const validation = nothingToCheck
        ? { valid: true as const, errors: null, coerced: undefined }
        : api.validateRequest(
            {
              method: req.method,
              path,
              headers: req.headers as Record<string, string>,
              query: req.query as Record<string, string>,
              body: multipart ? (req.body ?? {}) : req.body,
            },
            operation,
          );
      const problems = validation.valid ? [] : toFieldProblems(validation.errors ?? []);
      // Multipart bodies are checked here: the validator does not see the file stream.
      if (multipart && !req.file)
        problems.push({
          field: 'file',
          message: 'a multipart part named "file" holding a .tar.gz archive is required',
        });
      if (problems.length > 0) throw new ValidationFailedError('the request is not valid', problems);

      const coerced = validation.coerced ?? {};
      const params = route.params;
      // nothing to check means no query string: skip req.query, which parses the URL again on every read
      const query = (coerced.query ?? (nothingToCheck ? {} : req.query)) as Record<string, unknown>;
      const body = multipart ? undefined : (res.locals.dispatchBody ?? req.body);

      if (servedByOf(operation) === 'gateway') {
        const handler = local.get(operation.operationId!);
        if (!handler)
          throw new ServiceError('not_implemented', `${operation.operationId} has no handler on this gateway`);
        await handler({ operation, principal, params, query, body }, req, res);
        return;
      }
      const reply = await scheduler.dispatch(
        {
          operation_id: operation.operationId!,
          principal: principal
            ? {
                project_id: principal.projectId,
                organization_id: principal.organizationId,
                key_id: principal.keyId ?? '',
                scopes: principal.scopes,
                user_id: principal.userId ?? '',
                is_operator: principal.isOperator,
                session_id: principal.sessionId ?? '',
              }
            : undefined,
          params_json: JSON.stringify(params ?? {}),
          query_json: JSON.stringify(query ?? {}),
          body_json: body === undefined ? '' : JSON.stringify(body),
          attachment: req.file?.buffer,
          attachment_name: req.file?.originalname ?? '',
          client_address: req.ip ?? '',
          user_agent: req.get('user-agent') ?? '',
        },
        undefined,
        req.method === 'GET' || req.method === 'HEAD',
      );
      for (const [k, v] of Object.entries(reply.headers ?? {})) {
        if (k === NEXT_CURSOR_HEADER) res.setHeader('link', nextLink(req.originalUrl, v));
        // appended: the gateway may have set a cookie of its own (gateway/idp-request.ts)
        else if (k.toLowerCase() === 'set-cookie') res.append('set-cookie', secureOver(req, v));
        else res.setHeader(k, v);
      }
      if ((reply.status || 200) < 400 && req.method !== 'GET' && req.method !== 'HEAD') opts.changed?.();
      if (needs.endsSession && principal?.sessionId && (reply.status || 200) < 400)
        await opts.signedOut?.(principal.sessionId);
      // this gateway refuses a key it revoked before answering; the others drop it on the announcement
      if (needs.revokesKey && (reply.status || 200) < 400)
        auth.forget(typeof params?.key_id === 'string' ? params.key_id : null);
      res.status(reply.status || 200);
      if (reply.body_bytes.length > 0 || reply.content_type) {
        res.type(reply.content_type || 'application/octet-stream');
        if (reply.file_name) res.attachment(reply.file_name);
        res.send(reply.body_bytes);
      } else {
        res.type('application/json').send(reply.body_json || '{}');
      }
    } catch (err) {
      next(err);
    }
  };
  // One Express layer for the whole pipeline, the compressor's wrapping included: each layer of
  // Express's router costs a path match and a prefix trim and restore per request (bench/gateway).
  const compress = compressAnswers();
  return (req, res, next) =>
    compress(req, res, (err?: unknown) => {
      if (err) return next(err);
      readBody(req, res, (err2?: unknown) => (err2 ? next(err2) : void answer(req, res, next)));
    });
}

function runUpload(upload: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    upload(req, res, (err: unknown) => {
      if (!err) return resolve();
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE')
          return reject(
            new ServiceError(
              'payload_too_large',
              'the archive is larger than this server accepts (SERVICE_MAX_UPLOAD_BYTES)',
            ),
          );
        return reject(
          new ServiceError('bad_request', `multipart form: ${err.message}${err.field ? ` (${err.field})` : ''}`),
        );
      }
      reject(
        new ServiceError(
          'bad_request',
          `multipart form could not be read: ${err instanceof Error ? err.message : String(err)}`,
        ),
      );
    });
  });
}
