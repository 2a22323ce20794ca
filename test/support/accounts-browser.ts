import type { ApiAnswer } from './service.js';

/**
 * A client that behaves like a browser on the console's pages: it keeps the session
 * cookie and the identity-provider sign-in cookie the server sets (and drops them when
 * the server clears them) and sends `Origin`
 * with every request, as browsers do for writes. `origin: null` leaves the header out;
 * another value pretends to be a page of another site.
 */
export function browser(base: string, opts: { origin?: string | null } = {}) {
  let session: string | null = null;
  let lastSetCookie: string | null = null;
  /** The cookie of a started identity-provider sign-in (POST /v1/auth/idp/start). */
  let idpRequest: string | null = null;
  const origin = opts.origin === undefined ? base : opts.origin;

  async function call<T = any>(
    method: string,
    p: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiAnswer<T>> {
    const h: Record<string, string> = {};
    if (origin !== null) h.origin = origin;
    const jar = [session ? `crucible_session=${session}` : '', idpRequest ? `crucible_idp=${idpRequest}` : ''];
    if (jar.some(Boolean)) h.cookie = jar.filter(Boolean).join('; ');
    if (body !== undefined) h['content-type'] = 'application/json';
    Object.assign(h, headers);
    const res = await fetch(base + p, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = res.headers.getSetCookie();
    if (set.length > 0) lastSetCookie = set.find((c) => c.startsWith('crucible_session=')) ?? set[0]!;
    for (const c of set) {
      const m = /^(crucible_session|crucible_idp)=([^;]*)/.exec(c);
      if (!m) continue;
      const value = /Max-Age=0\b/i.test(c) || m[2] === '' ? null : m[2]!;
      if (m[1] === 'crucible_session') session = value;
      else idpRequest = value;
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  return {
    get: <T = any>(p: string, headers?: Record<string, string>) => call<T>('GET', p, undefined, headers),
    post: <T = any>(p: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', p, body ?? {}, headers),
    put: <T = any>(p: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('PUT', p, body ?? {}, headers),
    del: <T = any>(p: string, headers?: Record<string, string>) => call<T>('DELETE', p, undefined, headers),
    call,
    /** The session token the browser holds, or null. */
    get session(): string | null {
      return session;
    },
    set session(token: string | null) {
      session = token;
    },
    /** The cookie of the identity-provider sign-in this browser started, or null. */
    get idpRequest(): string | null {
      return idpRequest;
    },
    set idpRequest(value: string | null) {
      idpRequest = value;
    },
    /** The last Set-Cookie header the server sent (the session's, when it sent several). */
    get lastSetCookie(): string | null {
      return lastSetCookie;
    },
  };
}

export type Browser = ReturnType<typeof browser>;

let counter = 0;
/** An e-mail address no other test uses. */
export function uniqueEmail(tag = 'user'): string {
  counter++;
  return `${tag}-${Date.now().toString(36)}-${counter}@example.com`;
}

/**
 * Signs up as the console does: one call, which signs the browser in (201 with the user
 * and the session cookie) for a new address, or answers 409 for one that already has an
 * account.
 */
export async function signUp(
  b: Browser,
  fields: { name: string; email: string; password: string },
  headers?: Record<string, string>,
): Promise<ApiAnswer<any>> {
  return b.post('/v1/auth/signup', fields, headers);
}
