import type { IncomingMessage } from 'node:http';
import { ServiceError, ValidationFailedError } from '../core/index.js';
import type { FieldProblem } from './validation-errors.js';

/**
 * How deep a JSON request body may nest: the body itself is level 1 and each object or list
 * inside another adds one, so `{"args": {"a": [1]}}` reaches level 3. MongoDB refuses
 * documents nested past 100 levels, and JSON.stringify, structuredClone and the content
 * hashes recurse once per level (a RangeError near 5,000), so free-form values
 * (`args`, `scenario`) must stop well before.
 */
export const JSON_MAX_DEPTH = 32;

/**
 * How many values a JSON request body may hold: every object, list, string, number, `true`,
 * `false` and `null` counts one (an object's keys come with their values). The largest body
 * the typed fields of gateway/openapi.yaml allow holds about 1,100; the rest is room for the
 * free-form `args` and `scenario`, which every component stores, hashes and copies whole.
 */
export const JSON_MAX_VALUES = 10_000;

/** One container open around the scan's position: a list at an index, or an object at a key. */
interface Frame {
  list: boolean;
  index: number;
  /** Where the current key's JSON string starts and ends in the text (objects). */
  keyStart: number;
  keyEnd: number;
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;

const isDelimiter = (c: number): boolean =>
  c === COMMA ||
  c === COLON ||
  c === CLOSE_OBJECT ||
  c === CLOSE_LIST ||
  c === OPEN_OBJECT ||
  c === OPEN_LIST ||
  c === QUOTE ||
  c === 0x20 ||
  c === 0x09 ||
  c === 0x0a ||
  c === 0x0d;

/** A key as the path shows it: decoded, and cut short when long. */
function keyText(text: string, frame: Frame): string {
  const raw = text.slice(frame.keyStart, frame.keyEnd);
  let key: string;
  try {
    key = JSON.parse(raw) as string;
  } catch {
    key = raw.slice(1, -1);
  }
  return key.length > 32 ? `${key.slice(0, 32)}...` : key;
}

/**
 * The 422 field of a position, as gateway/validation-errors.ts names fields: keys and indexes
 * joined by dots (`args.a.0`); `body` for the body itself, and before the indexes of a body
 * that is a list (`body.0.0`).
 */
function fieldAt(text: string, frames: readonly Frame[], levels: number): string {
  const parts = frames.slice(0, levels).map((f) => (f.list ? String(f.index) : keyText(text, f)));
  if (parts.length === 0 || frames[0]!.list) parts.unshift('body');
  const field = parts.join('.');
  return field.length > 400 ? `${field.slice(0, 400)}...` : field;
}

/**
 * Checks a JSON text against {@link JSON_MAX_DEPTH} and {@link JSON_MAX_VALUES} before it
 * is parsed, in one pass without recursion, and stops at the first limit it passes: the
 * problem names the path where that happened. Only the structure is looked at; whether the
 * text is valid JSON is JSON.parse's to say, after (a malformed text never makes this throw).
 */
export function jsonBoundsProblem(
  text: string,
  limits = { maxDepth: JSON_MAX_DEPTH, maxValues: JSON_MAX_VALUES },
): FieldProblem | null {
  const frames: Frame[] = [];
  let values = 0;
  const n = text.length;
  // a value starts at the current position: count it, and name where the count passed the limit
  const value = (): FieldProblem | null => {
    values++;
    if (values <= limits.maxValues) return null;
    // the top-level field being written when the count passed (in practice the free-form one)
    return {
      field: fieldAt(text, frames, 1),
      message:
        `passes the limit of ${limits.maxValues} values in one JSON body ` +
        '(each object, list, string, number, true, false and null counts one)',
    };
  };
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === BACKSLASH) j += 2;
        else if (d === QUOTE) break;
        else j++;
      }
      const top = frames[frames.length - 1];
      if (top && !top.list && top.expectKey) {
        top.keyStart = i;
        top.keyEnd = Math.min(j + 1, n);
        top.expectKey = false;
      } else {
        const problem = value();
        if (problem) return problem;
      }
      i = j;
    } else if (c === OPEN_OBJECT || c === OPEN_LIST) {
      const problem = value();
      if (problem) return problem;
      if (frames.length + 1 > limits.maxDepth)
        return {
          field: fieldAt(text, frames, frames.length),
          message: `nests deeper than ${limits.maxDepth} levels (objects and lists inside one another, the body being the first); at most ${limits.maxDepth} are accepted`,
        };
      frames.push({ list: c === OPEN_LIST, index: 0, keyStart: 0, keyEnd: 0, expectKey: c === OPEN_OBJECT });
    } else if (c === CLOSE_OBJECT || c === CLOSE_LIST) {
      frames.pop();
    } else if (c === COMMA) {
      const top = frames[frames.length - 1];
      if (top?.list) top.index++;
      else if (top) top.expectKey = true;
    } else if (!isDelimiter(c)) {
      // a number, true, false or null (or garbage JSON.parse refuses next): one value
      const problem = value();
      if (problem) return problem;
      while (i + 1 < n && !isDelimiter(text.charCodeAt(i + 1))) i++;
    }
  }
  return null;
}

/**
 * The `verify` hook of express.json(): refuses a body past the bounds with 422 before
 * JSON.parse builds it (a megabyte of `[` would otherwise cost JSON.parse most of a second,
 * and JSON.stringify a RangeError later). body-parser passes the thrown error on with its
 * own status, so the error handler answers it like any validation failure.
 */
export function verifyJsonBounds(_req: IncomingMessage, _res: unknown, body: Buffer, encoding: string): void {
  let text: string;
  try {
    text = new TextDecoder(encoding).decode(body);
  } catch {
    throw new ServiceError('unsupported_media_type', 'the body must be UTF-8 JSON');
  }
  const problem = jsonBoundsProblem(text);
  if (problem) throw new ValidationFailedError('the request is not valid', [problem]);
}
