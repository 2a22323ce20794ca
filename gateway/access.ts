import { ServiceError } from '../core/index.js';
import { scopesAllow, type AccessRule, type Principal } from '../core/index.js';

const NEEDS: Record<AccessRule, string> = {
  none: '',
  any: 'an API key or a console session',
  read: 'the read scope',
  write: 'the write scope',
  evaluator: 'the evaluator scope',
  'write+evaluator': 'both the write and evaluator scopes',
  admin: 'the admin scope',
  'read|agent': 'the read or agent scope',
  'write|agent': 'the write or agent scope',
  operator: 'a console sign-in by an operator of this installation',
};

/**
 * Applies an operation's access rule: 401 without credentials, 403 when they do not reach.
 * Operator operations take a console session of an operator; any key is refused.
 */
export function authorize(rule: AccessRule, principal: Principal | null): void {
  if (rule === 'none') return;
  if (!principal)
    throw new ServiceError(
      'unauthenticated',
      `this operation needs ${NEEDS[rule]}: send "Authorization: Bearer <API key>"`,
    );
  if (rule === 'operator') {
    if (principal.keyId)
      throw new ServiceError(
        'forbidden',
        'operator operations need a console sign-in by an operator; API keys are refused',
      );
    if (!principal.isOperator) throw new ServiceError('forbidden', 'only operators of this installation may do this');
    return;
  }
  if (!principal.projectId && rule !== 'any') {
    throw new ServiceError('forbidden', 'create your workspace first (POST /v1/onboarding/workspace)');
  }
  if (!scopesAllow(rule, principal.scopes)) {
    // `any` refuses only keys whose scopes are all `agent`: name what would do, not "an API key"
    if (rule === 'any')
      throw new ServiceError(
        'forbidden',
        'this operation needs a console session or an API key with the read, write, evaluator or admin scope; ' +
          'this key has only the agent scope, which takes agent turns and nothing else',
      );
    throw new ServiceError(
      'forbidden',
      `this operation needs ${NEEDS[rule]}; this key has: ${principal.scopes.join(', ') || 'no scopes'}`,
    );
  }
}
