/** The scopes of spec section 5. */
export const SCOPES = ['admin', 'read', 'write', 'evaluator', 'agent'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Who is calling, as the gateway authenticated them (an API key or a console session).
 * It crosses to the scheduler in every Dispatch.
 */
export interface Principal {
  projectId: string;
  organizationId: string;
  /** Set for API keys. */
  keyId: string | null;
  /** Set for console sessions and keys created by a user. */
  userId: string | null;
  sessionId: string | null;
  scopes: Scope[];
  /** A console user named an operator (accounts/operators.ts). Never true for a key. */
  isOperator: boolean;
}

/**
 * The access rule of an operation, as `x-access` in gateway/openapi.yaml writes it.
 * `admin` is accepted everywhere; `write` and `evaluator` each include `read`.
 */
export type AccessRule =
  | 'none'
  | 'any'
  | 'read'
  | 'write'
  | 'evaluator'
  | 'write+evaluator'
  | 'admin'
  | 'read|agent'
  | 'write|agent'
  | 'operator';

export const ACCESS_RULES: readonly AccessRule[] = [
  'none',
  'any',
  'read',
  'write',
  'evaluator',
  'write+evaluator',
  'admin',
  'read|agent',
  'write|agent',
  'operator',
];

function has(scopes: readonly Scope[], scope: 'read' | 'write' | 'evaluator'): boolean {
  if (scopes.includes('admin') || scopes.includes(scope)) return true;
  return scope === 'read' && (scopes.includes('write') || scopes.includes('evaluator'));
}

/**
 * Whether scopes satisfy a rule. `any` means any key or console session that can do
 * something beyond agent turns: an `agent`-only key does "nothing else" (spec section 5),
 * so it is refused everywhere but the `|agent` operations.
 */
export function scopesAllow(rule: AccessRule, scopes: readonly Scope[]): boolean {
  switch (rule) {
    case 'none':
      return true;
    case 'any':
      return scopes.some((s) => s !== 'agent');
    case 'read':
    case 'write':
    case 'evaluator':
      return has(scopes, rule);
    case 'write+evaluator':
      return has(scopes, 'write') && has(scopes, 'evaluator');
    case 'admin':
      return scopes.includes('admin');
    case 'read|agent':
      return has(scopes, 'read') || scopes.includes('agent');
    case 'write|agent':
      return has(scopes, 'write') || scopes.includes('agent');
    case 'operator':
      return false; // decided by the session, never by scopes
  }
}
