/** A failure to read an arithmetic expression, with the character position it happened at. */
export class ArithmeticError extends Error {
  override readonly name = "ArithmeticError";
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

const FUNCTIONS: Record<string, (...args: number[]) => number> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  min: Math.min,
  max: Math.max,
  ln: Math.log,
  log10: Math.log10,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
};
const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E };

/**
 * Evaluate an arithmetic expression: numbers, + - * / % ^ (right-associative), parentheses,
 * unary minus, the constants pi and e, and a few functions (sqrt, abs, round, min, max, ...).
 * A recursive-descent parser; nothing is passed to eval. Throws ArithmeticError.
 */
export function evaluate(expression: string): number {
  const parser = new Parser(expression);
  const value = parser.expression();
  parser.skipSpace();
  if (!parser.done()) throw new ArithmeticError(`Unexpected "${parser.peek()}"`, parser.pos);
  if (!Number.isFinite(value))
    throw new ArithmeticError(Number.isNaN(value) ? "The result is not a number" : "The result is infinite (division by zero?)", 0);
  return value;
}

class Parser {
  pos = 0;
  constructor(private readonly text: string) {}

  done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(): string {
    return this.text[this.pos] ?? "";
  }
  skipSpace(): void {
    while (/\s/.test(this.peek())) this.pos++;
  }
  private eat(char: string): boolean {
    this.skipSpace();
    if (this.peek() !== char) return false;
    this.pos++;
    return true;
  }

  // expression := term (("+" | "-") term)*
  expression(): number {
    let value = this.term();
    for (;;) {
      if (this.eat("+")) value += this.term();
      else if (this.eat("-")) value -= this.term();
      else return value;
    }
  }

  // term := unary (("*" | "/" | "%") unary)*
  private term(): number {
    let value = this.unary();
    for (;;) {
      if (this.eat("*")) value *= this.unary();
      else if (this.eat("/")) value /= this.unary();
      else if (this.eat("%")) value %= this.unary();
      else return value;
    }
  }

  // unary := ("-" | "+") unary | power
  private unary(): number {
    if (this.eat("-")) return -this.unary();
    if (this.eat("+")) return this.unary();
    return this.power();
  }

  // power := primary ("^" unary)?
  private power(): number {
    const base = this.primary();
    return this.eat("^") ? base ** this.unary() : base;
  }

  // primary := number | name | name "(" args ")" | "(" expression ")"
  private primary(): number {
    this.skipSpace();
    const start = this.pos;
    if (this.eat("(")) {
      const value = this.expression();
      if (!this.eat(")")) throw new ArithmeticError('Missing ")"', this.pos);
      return value;
    }
    const number = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.pos));
    if (number) {
      this.pos += number[0].length;
      return Number(number[0]);
    }
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(this.text.slice(this.pos));
    if (name) {
      this.pos += name[0].length;
      const id = name[0].toLowerCase();
      if (this.eat("(")) {
        const fn = Object.hasOwn(FUNCTIONS, id) ? FUNCTIONS[id] : undefined;
        if (!fn) throw new ArithmeticError(`Unknown function "${name[0]}"`, start);
        const args = [this.expression()];
        while (this.eat(",")) args.push(this.expression());
        if (!this.eat(")")) throw new ArithmeticError('Missing ")"', this.pos);
        return fn(...args);
      }
      if (Object.hasOwn(CONSTANTS, id)) return CONSTANTS[id]!;
      throw new ArithmeticError(`Unknown name "${name[0]}"`, start);
    }
    throw new ArithmeticError(this.done() ? "The expression ends too early" : `Unexpected "${this.peek()}"`, this.pos);
  }
}
