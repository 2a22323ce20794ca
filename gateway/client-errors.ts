import type http from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Answers what Node's HTTP parser refuses before Express sees a request (oversize headers,
 * malformed request lines) with the API's JSON `{detail}` instead of Node's bare status line.
 * A socket already reset, or one that has sent an answer, is only closed.
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const [status, reason, detail] = clientErrorAnswer(err.code);
    const body = JSON.stringify({ detail });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** Status, reason phrase and detail for a parser error code (llhttp's `HPE_*`). */
export function clientErrorAnswer(code: string | undefined): [number, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW')
    return [431, 'Request Header Fields Too Large', 'the request headers are larger than this server accepts'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT')
    return [408, 'Request Timeout', 'the request took too long to arrive'];
  return [400, 'Bad Request', 'the request is not valid HTTP'];
}
