import { commonError } from '@svc/errors';

export interface JsonLimits {
  /** Deepest nesting of objects and arrays accepted. */
  maxDepth: number;
  /** Most members one object may have. */
  maxMembers: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 32, maxMembers: 1_000 };

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COLON = 0x3a; // :

/**
 * One pass over the JSON text, before it is parsed: refuses nesting deeper than `maxDepth` and
 * objects with more than `maxMembers` members. Linear in the text and without recursion, so a
 * 300,000-deep body costs what its bytes cost and cannot overflow a stack later on. It does not
 * check the grammar (the parser does); brackets and colons inside strings are skipped.
 */
export function checkJsonShape(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): void {
  new JsonShapeGuard(limits).feed(text);
}

/**
 * {@link checkJsonShape} over text that arrives in pieces (a streamed body): each piece is checked
 * as it comes, with the nesting and string state carried across pieces, so a body that nests too
 * deeply is refused before a parser builds any of it.
 */
export class JsonShapeGuard {
  private readonly isObject: boolean[] = [];
  private readonly members: number[] = [];
  private depth = 0;
  private inString = false;
  /** A backslash ended the previous piece inside a string: the next piece's first character is escaped. */
  private escaped = false;

  constructor(private readonly limits: JsonLimits = DEFAULT_JSON_LIMITS) {}

  feed(text: string): void {
    const { limits, isObject, members } = this;
    let { depth, inString } = this;
    let i = this.escaped ? 1 : 0;
    this.escaped = false;
    for (; i < text.length; i += 1) {
      const char = text.charCodeAt(i);
      if (inString) {
        if (char === BACKSLASH) {
          if (i + 1 === text.length) this.escaped = true;
          i += 1;
        } else if (char === QUOTE) inString = false;
        continue;
      }
      if (char === QUOTE) {
        inString = true;
      } else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
        depth += 1;
        if (depth > limits.maxDepth) {
          throw commonError('json_too_deep', `Request body nests deeper than ${limits.maxDepth} levels`, { limit_depth: limits.maxDepth });
        }
        isObject[depth] = char === OPEN_OBJECT;
        members[depth] = 0;
      } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
        depth = Math.max(0, depth - 1);
      } else if (char === COLON && isObject[depth] === true) {
        members[depth] = (members[depth] ?? 0) + 1;
        if (members[depth]! > limits.maxMembers) {
          throw commonError('json_too_many_members', `An object of the request body has more than ${limits.maxMembers} members`, {
            limit_members: limits.maxMembers,
          });
        }
      }
    }
    this.depth = depth;
    this.inString = inString;
  }
}
