/** A request the server refused: its HTTP status and its `detail` (text, or the 422 field list). */
export class ApiError extends Error {
  /** A sentence the CLI adds after the detail: e.g. which key was sent where. */
  hint?: string;

  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly method = '',
    readonly path = '',
  ) {
    super(`${method} ${path} answered ${status}: ${formatDetail(detail)}`.trim());
    this.name = 'ApiError';
  }
}

/** One line for a `detail`: the text, or `field: message` items joined by `; `. */
export function formatDetail(detail: unknown): string {
  if (Array.isArray(detail)) {
    return detail
      .map((d) =>
        d && typeof d === 'object' && 'field' in d
          ? `${(d as { field: string }).field}: ${(d as { message?: string }).message}`
          : String(d),
      )
      .join('; ');
  }
  return typeof detail === 'string' ? detail : JSON.stringify(detail);
}

/** The ApiError of a refused answer, with the server's `detail`. */
export async function refusal(res: Response, method: string, path: string): Promise<ApiError> {
  const text = await res.text();
  let detail: unknown = text || res.statusText;
  try {
    const parsed = JSON.parse(text) as { detail?: unknown };
    detail = parsed && typeof parsed === 'object' && 'detail' in parsed ? parsed.detail : parsed;
  } catch {
    // not JSON: keep the text
  }
  return new ApiError(res.status, detail, method, path);
}
