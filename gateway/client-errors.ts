import type http from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Answers what Node's HTTP parser refuses with the API's JSON `{detail}` instead of Node's
 * bare status line or a silent close: oversize headers and malformed request lines, before
 * Express sees a request, and a body the parser cannot read (an invalid chunked body) after
 * it did, through that request's own response while it has sent nothing. The connection is
 * closed after the answer: the parser cannot find the next request in it. A socket already
 * reset, or whose request has started its answer, is only closed.
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const pending = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, reason, detail] = clientErrorAnswer(err.code);
    if (pending) {
      pending.once('finish', () => socket.destroy());
      pending.shouldKeepAlive = false;
      pending.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      pending.end(JSON.stringify({ detail }));
      return;
    }
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
  if (code === 'HPE_INVALID_CHUNK_SIZE' || code === 'HPE_STRICT' || code === 'HPE_INVALID_TRANSFER_ENCODING')
    return [400, 'Bad Request', 'the body is not valid chunked transfer encoding (Transfer-Encoding: chunked)'];
  return [400, 'Bad Request', 'the request is not valid HTTP'];
}
