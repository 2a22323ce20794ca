import type { ApiAnswer } from './service.js';

/**
 * A client that behaves like a browser on the console's pages: it keeps the session
 * cookie the server sets (and drops it when the server clears it) and sends `Origin`
 * with every request, as browsers do for writes. `origin: null` leaves the header out;
 * another value pretends to be a page of another site.
 */
export function browser(base: string, opts: { origin?: string | null } = {}) {
  let session: string | null = null;
  let lastSetCookie: string | null = null;
  const origin = opts.origin === undefined ? base : opts.origin;

  async function call<T = any>(
    method: string,
    p: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiAnswer<T>> {
    const h: Record<string, string> = {};
    if (origin !== null) h.origin = origin;
    if (session) h.cookie = `crucible_session=${session}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    Object.assign(h, headers);
    const res = await fetch(base + p, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = res.headers.get('set-cookie');
    if (set) {
      lastSetCookie = set;
      const m = /^crucible_session=([^;]*)/.exec(set);
      if (m) session = /Max-Age=0\b/i.test(set) || m[1] === '' ? null : m[1]!;
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
    /** The last Set-Cookie header the server sent. */
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
 * Signs up as the console does: sign-up answers 201 alike for new and existing addresses
 * (no session), then the browser signs in with the same address and password. Returns
 * the sign-in's answer (200 with the user, or 401 when the address already had an
 * account with another password).
 */
export async function signUp(
  b: Browser,
  fields: { name: string; email: string; password: string },
  headers?: Record<string, string>,
): Promise<ApiAnswer<any>> {
  const r = await b.post('/v1/auth/signup', fields, headers);
  if (r.status !== 201) return r;
  return b.post('/v1/auth/login', { email: fields.email, password: fields.password }, headers);
}
