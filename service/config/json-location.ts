/**
 * Finds where a JSON text first goes wrong. Node 20's JSON.parse often reports only the offending token, not its
 * position, and an operator editing a config file needs a line and column.
 */

/** Unwinds the recursive scan at the first error; never escapes jsonErrorLocation. */
class Stop extends Error {
  constructor(readonly offset: number) {
    super(`JSON syntax error at offset ${offset}`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

function scan(text: string): void {
  let i = 0;
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++;
  };
  const expect = (char: string) => {
    space();
    if (text[i] !== char) throw new Stop(i);
    i++;
  };
  const string = () => {
    if (text[i] !== '"') throw new Stop(i);
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined || c < ' ') throw new Stop(i);
      if (c === '"') return void i++;
      if (c === '\\') {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) throw new Stop(i);
        i = ESCAPE.lastIndex;
      } else i++;
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        if (close === '}') {
          space();
          string();
          expect(':');
        }
        value();
        space();
        if (text[i] === ',') i++;
        else return expect(close);
      }
    }
    if (c === '"') return string();
    for (const word of ['true', 'false', 'null']) if (text.startsWith(word, i)) return void (i += word.length);
    NUMBER.lastIndex = i;
    if (!NUMBER.test(text)) throw new Stop(i);
    i = NUMBER.lastIndex;
  };
  value();
  space();
  if (i < text.length) throw new Stop(i);
}

/** The 1-based line and column of the first JSON syntax error, or undefined if the text is valid JSON. */
export function jsonErrorLocation(text: string): { line: number; column: number } | undefined {
  try {
    scan(text);
    return undefined;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    const before = text.slice(0, err.offset);
    const lineStart = before.lastIndexOf('\n') + 1;
    return { line: before.split('\n').length, column: err.offset - lineStart + 1 };
  }
}
