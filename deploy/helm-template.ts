/**
 * A small renderer of Helm's template language for the chart's tests (no helm binary runs here).
 * It executes Go text/template — actions with trim markers, if/else if/else, range (with
 * `$key, $value :=`), with, define/include, variables, pipelines, parentheses — and the functions the
 * chart uses (sprig's dict, list, append, has, default, required, fail, printf, trunc, trimSuffix,
 * nindent, indent, quote, int, toString, join, sha256sum, not, and, or, eq, len, and Helm's
 * toYaml). Like Helm it errors on a field of a missing value and on an unknown function. It is not
 * Helm: no `tpl`, `lookup`, `.Capabilities` or `.Files`, no subcharts, and toYaml's layout may
 * differ from Go's yaml (the same data, parsed back).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

type Value = unknown;

/** Variables of one block; `:=` declares here, `=` assigns where the variable was declared. */
class Scope {
  private readonly variables = new Map<string, Value>();
  constructor(private readonly parent?: Scope) {}

  child(): Scope {
    return new Scope(this);
  }

  has(name: string): boolean {
    return this.variables.has(name) || (this.parent?.has(name) ?? false);
  }

  get(name: string): Value {
    return this.variables.has(name) ? this.variables.get(name) : this.parent?.get(name);
  }

  declare(name: string, value: Value): void {
    this.variables.set(name, value);
  }

  assign(name: string, value: Value): void {
    if (this.variables.has(name)) this.variables.set(name, value);
    else if (this.parent) this.parent.assign(name, value);
    else throw new TemplateError(`undefined variable ${name}`);
  }
}

interface TextNode {
  kind: 'text';
  text: string;
}
interface ActionNode {
  kind: 'action';
  source: string;
}
interface BranchNode {
  kind: 'if' | 'with' | 'range';
  source: string;
  body: Node[];
  otherwise: Node[];
}
type Node = TextNode | ActionNode | BranchNode;

export class TemplateError extends Error {}

/** A parsed values document. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const isMap = (value: Json | undefined): value is { [key: string]: Json } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Helm's coalescing of a values file over the chart's: maps merge key by key, anything else replaces, null deletes. */
export function helmMerge(base: Json, override: Json): Json {
  if (!isMap(base) || !isMap(override)) return override;
  const result: { [key: string]: Json } = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete result[key];
    else result[key] = key in base ? helmMerge(base[key]!, value) : value;
  }
  return result;
}

// ---------------------------------------------------------------- parsing

interface Token {
  kind: 'text' | 'action';
  text: string;
}

/** Splits a template into text and `{{ }}` actions, applying `{{-` and `-}}` trimming; drops comments. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let rest = source;
  let trimNext = false;
  while (rest.length > 0) {
    const open = rest.indexOf('{{');
    let text = open < 0 ? rest : rest.slice(0, open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) {
      tokens.push({ kind: 'text', text });
      break;
    }
    let inner = rest.slice(open + 2);
    const trimBefore = /^- /.test(inner) || inner.startsWith('-/*');
    if (trimBefore) {
      text = text.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    tokens.push({ kind: 'text', text });
    const close = findClose(inner);
    let action = inner.slice(0, close);
    trimNext = / -$/.test(action) || action.endsWith('*/-');
    if (trimNext) action = action.slice(0, -1);
    action = action.trim();
    if (!(action.startsWith('/*') && action.endsWith('*/'))) tokens.push({ kind: 'action', text: action });
    rest = inner.slice(close + 2);
  }
  return tokens.filter((token) => token.kind === 'action' || token.text !== '');
}

/** Index of the `}}` closing an action, skipping string literals and comments. */
function findClose(inner: string): number {
  if (inner.trimStart().startsWith('/*')) {
    const end = inner.indexOf('*/');
    return inner.indexOf('}}', end);
  }
  let quote: string | undefined;
  for (let i = 0; i < inner.length; i += 1) {
    const char = inner[i]!;
    if (quote) {
      if (char === '\\' && quote === '"') i += 1;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === '`') quote = char;
    else if (inner.startsWith('}}', i)) return i;
  }
  throw new TemplateError('unclosed action');
}

class Parser {
  private position = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly defines: Map<string, Node[]>,
  ) {}

  /** Parses nodes until `end`/`else` (returned as the terminator) or the end of input. */
  parse(): { nodes: Node[]; terminator?: string } {
    const nodes: Node[] = [];
    while (this.position < this.tokens.length) {
      const token = this.tokens[this.position++]!;
      if (token.kind === 'text') {
        nodes.push({ kind: 'text', text: token.text });
        continue;
      }
      const word = /^[a-z]+/.exec(token.text)?.[0];
      if (word === 'end' || word === 'else') return { nodes, terminator: token.text };
      if (word === 'if' || word === 'with' || word === 'range') nodes.push(this.branch(word, token.text.slice(word.length).trim()));
      else if (word === 'define') {
        const name = /^define\s+"([^"]+)"$/.exec(token.text)?.[1];
        if (!name) throw new TemplateError(`bad define: ${token.text}`);
        const body = this.parse();
        if (body.terminator !== 'end') throw new TemplateError(`define "${name}" not closed by end`);
        this.defines.set(name, body.nodes);
      } else nodes.push({ kind: 'action', source: token.text });
    }
    return { nodes };
  }

  private branch(kind: 'if' | 'with' | 'range', source: string): BranchNode {
    const body = this.parse();
    const node: BranchNode = { kind, source, body: body.nodes, otherwise: [] };
    if (body.terminator === undefined) throw new TemplateError(`${kind} ${source} not closed by end`);
    if (body.terminator === 'else') {
      const otherwise = this.parse();
      if (otherwise.terminator !== 'end') throw new TemplateError(`else of ${kind} ${source} not closed by end`);
      node.otherwise = otherwise.nodes;
    } else if (body.terminator.startsWith('else if ')) {
      // `else if c` is an if nested in the else branch; it consumes the shared `end`.
      node.otherwise = [this.branch('if', body.terminator.slice('else if '.length).trim())];
    } else if (body.terminator !== 'end') throw new TemplateError(`unsupported {{ ${body.terminator} }}`);
    return node;
  }
}

// ---------------------------------------------------------------- expressions

/** Splits an action into words: strings, parenthesised groups, `|`, `:=`, `=`, `,` and bare words. */
function words(source: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    if (/\s/.test(char)) {
      i += 1;
    } else if (char === '"' || char === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== char) j += char === '"' && source[j] === '\\' ? 2 : 1;
      out.push(source.slice(i, j + 1));
      i = j + 1;
    } else if (char === '(') {
      let depth = 0;
      let j = i;
      let quote: string | undefined;
      for (; j < source.length; j += 1) {
        const c = source[j]!;
        if (quote) {
          if (c === '\\' && quote === '"') j += 1;
          else if (c === quote) quote = undefined;
        } else if (c === '"' || c === '`') quote = c;
        else if (c === '(') depth += 1;
        else if (c === ')' && --depth === 0) break;
      }
      out.push(source.slice(i, j + 1));
      i = j + 1;
    } else if (source.startsWith(':=', i)) {
      out.push(':=');
      i += 2;
    } else if (char === '|' || char === '=' || char === ',') {
      out.push(char);
      i += 1;
    } else {
      let j = i;
      while (j < source.length && !/[\s|()=,]/.test(source[j]!)) j += 1;
      if (source[j] === '(' && j > i) throw new TemplateError(`unexpected ( in ${source}`);
      out.push(source.slice(i, j));
      i = j;
    }
  }
  return out;
}

const truthy = (value: Value): boolean => {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
};

/** Go's fmt %v of a value (what an action prints); nil prints as Helm's empty string. */
function show(value: Value): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(show).join(' ')}]`;
  return `map[${Object.entries(value as Record<string, Value>)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}:${show(v)}`)
    .join(' ')}]`;
}

function goQuote(text: string): string {
  return JSON.stringify(text);
}

function printf(format: string, args: Value[]): string {
  let index = 0;
  return format.replace(/%([sdqv%])/g, (_match, verb: string) => {
    if (verb === '%') return '%';
    const arg = args[index++];
    if (verb === 'd') {
      if (typeof arg !== 'number') return `%!d(${typeof arg}=${show(arg)})`;
      return String(Math.trunc(arg));
    }
    if (verb === 'q') return goQuote(show(arg));
    return show(arg);
  });
}

function toInt(value: Value): number {
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  if (typeof value === 'boolean') return value ? 1 : 0;
  return 0;
}

function indentLines(spaces: number, text: string): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}

export interface RenderContext {
  Values: Record<string, Value>;
  Release: { Name: string; Namespace: string; Service: string; IsInstall: boolean; IsUpgrade: boolean };
  Chart: { Name: string; Version: string; AppVersion: string };
  Template: { BasePath: string; Name: string };
}

export class ChartRenderer {
  private readonly defines = new Map<string, Node[]>();
  private readonly templates = new Map<string, Node[]>();
  private readonly sources = new Map<string, string>();

  /** `<chart>/templates`, Helm's `.Template.BasePath`; every file is also a named template under it. */
  readonly basePath: string;

  constructor(chartDir: string, chartName: string) {
    this.basePath = `${chartName}/templates`;
    const dir = join(chartDir, 'templates');
    for (const file of readdirSync(dir).sort()) {
      if (!/\.(yaml|tpl)$/.test(file)) continue;
      const source = readFileSync(join(dir, file), 'utf8');
      const nodes = this.parseTemplate(file, source);
      this.defines.set(`${this.basePath}/${file}`, nodes);
      if (!file.startsWith('_')) {
        this.templates.set(file, nodes);
        this.sources.set(file, source);
      }
    }
  }

  private parseTemplate(file: string, source: string): Node[] {
    try {
      const parsed = new Parser(tokenize(source), this.defines).parse();
      if (parsed.terminator !== undefined) throw new TemplateError(`unexpected {{ ${parsed.terminator} }}`);
      return parsed.nodes;
    } catch (error) {
      throw new TemplateError(`${file}: ${(error as Error).message}`);
    }
  }

  /** Renders every template (not partials) of the chart; returns file → text. */
  renderAll(context: Omit<RenderContext, 'Template'>): Map<string, string> {
    const out = new Map<string, string>();
    for (const [file, nodes] of this.templates) {
      const full: RenderContext = { ...context, Template: { BasePath: this.basePath, Name: `${this.basePath}/${file}` } };
      try {
        const scope = new Scope();
        scope.declare('$', full);
        const text = this.execute(nodes, full, scope, full);
        out.set(file, text);
      } catch (error) {
        throw new TemplateError(`${file}: ${(error as Error).message}`);
      }
    }
    return out;
  }

  private execute(nodes: Node[], dot: Value, outer: Scope, root: RenderContext): string {
    const scope = outer.child();
    let out = '';
    for (const node of nodes) {
      if (node.kind === 'text') out += node.text;
      else if (node.kind === 'action') {
        const value = this.action(node.source, dot, scope, root);
        if (value !== SILENT) out += show(value);
      } else out += this.branch(node, dot, scope, root);
    }
    return out;
  }

  private branch(node: BranchNode, dot: Value, scope: Scope, root: RenderContext): string {
    const inner = scope.child();
    if (node.kind === 'range') {
      const match = /^(\$\w+)(?:\s*,\s*(\$\w+))?\s*:=\s*(.+)$/.exec(node.source);
      const collection = this.pipeline(match ? match[3]! : node.source, dot, inner, root);
      const entries: Array<[Value, Value]> = Array.isArray(collection)
        ? collection.map((item, index) => [index, item])
        : collection && typeof collection === 'object'
          ? Object.keys(collection)
              .sort()
              .map((key) => [key, (collection as Record<string, Value>)[key]])
          : [];
      if (entries.length === 0) return this.execute(node.otherwise, dot, inner, root);
      let out = '';
      for (const [key, item] of entries) {
        const loop = inner.child();
        if (match?.[2]) {
          loop.declare(match[1]!, key);
          loop.declare(match[2], item);
        } else if (match) loop.declare(match[1]!, item);
        out += this.execute(node.body, item, loop, root);
      }
      return out;
    }
    const assignment = /^(\$\w+)\s*:=\s*(.+)$/.exec(node.source);
    const value = this.pipeline(assignment ? assignment[2]! : node.source, dot, inner, root);
    if (assignment) inner.declare(assignment[1]!, value);
    if (!truthy(value)) return this.execute(node.otherwise, dot, inner, root);
    return this.execute(node.body, node.kind === 'with' ? value : dot, inner, root);
  }

  private action(source: string, dot: Value, scope: Scope, root: RenderContext): Value {
    const declare = /^(\$\w+)\s*(:=|=)\s*(.+)$/s.exec(source);
    if (declare) {
      const value = this.pipeline(declare[3]!, dot, scope, root);
      if (declare[2] === '=') scope.assign(declare[1]!, value);
      else scope.declare(declare[1]!, value);
      return SILENT;
    }
    return this.pipeline(source, dot, scope, root);
  }

  private pipeline(source: string, dot: Value, scope: Scope, root: RenderContext): Value {
    const all = words(source);
    const commands: string[][] = [[]];
    for (const word of all) {
      if (word === '|') commands.push([]);
      else commands[commands.length - 1]!.push(word);
    }
    let piped: Value = NOTHING;
    for (const command of commands) {
      if (command.length === 0) throw new TemplateError(`empty command in ${source}`);
      piped = this.command(command, piped, dot, scope, root);
    }
    return piped;
  }

  private command(command: string[], piped: Value, dot: Value, scope: Scope, root: RenderContext): Value {
    const [head, ...rest] = command;
    const args = rest.map((word) => this.operand(word, dot, scope, root));
    if (piped !== NOTHING) args.push(piped);
    if (/^[a-zA-Z]\w*$/.test(head!) && !['true', 'false', 'nil'].includes(head!)) return this.call(head!, args, dot, root);
    if (args.length > 0) throw new TemplateError(`${head} is not a function`);
    return this.operand(head!, dot, scope, root);
  }

  private operand(word: string, dot: Value, scope: Scope, root: RenderContext): Value {
    if (word.startsWith('"')) return JSON.parse(word) as string;
    if (word.startsWith('`')) return word.slice(1, -1);
    if (word.startsWith('(')) return this.pipeline(word.slice(1, -1), dot, scope, root);
    if (/^-?\d+(\.\d+)?$/.test(word)) return Number(word);
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'nil') return null;
    if (word === '.') return dot;
    if (word.startsWith('.')) return this.fields(dot, word.slice(1).split('.'), word);
    if (word.startsWith('$')) {
      const [name, ...path] = word.split('.');
      if (!scope.has(name!)) throw new TemplateError(`undefined variable ${name}`);
      return this.fields(scope.get(name!), path, word);
    }
    // A bare function name used as an operand (no arguments).
    return this.call(word, [], dot, root);
  }

  private fields(start: Value, path: string[], word: string): Value {
    let value = start;
    for (const field of path) {
      if (value === undefined || value === null) throw new TemplateError(`nil pointer evaluating ${word} (at .${field})`);
      if (typeof value !== 'object' || Array.isArray(value)) throw new TemplateError(`can't evaluate field ${field} in ${word}`);
      value = (value as Record<string, Value>)[field];
    }
    return value;
  }

  private call(name: string, args: Value[], dot: Value, root: RenderContext): Value {
    const string = (index: number): string => show(args[index]);
    switch (name) {
      case 'include': {
        const body = this.defines.get(string(0));
        if (!body) throw new TemplateError(`no template "${string(0)}"`);
        const scope = new Scope();
        scope.declare('$', args[1]);
        return this.execute(body, args[1], scope, root);
      }
      case 'required':
        if (args[1] === undefined || args[1] === null || args[1] === '') throw new TemplateError(`execution error: ${string(0)}`);
        return args[1];
      case 'fail':
        throw new TemplateError(`execution error: ${string(0)}`);
      case 'dict': {
        const out: Record<string, Value> = {};
        for (let i = 0; i < args.length; i += 2) out[show(args[i])] = args[i + 1];
        return out;
      }
      case 'list':
        return [...args];
      case 'append':
        return [...((args[0] as Value[] | null) ?? []), args[1]];
      case 'has':
        return Array.isArray(args[1]) && args[1].includes(args[0]);
      case 'default':
        return truthy(args[1]) ? args[1] : args[0];
      case 'printf':
        return printf(string(0), args.slice(1));
      case 'print':
        return args.map(show).join('');
      case 'trunc':
        return string(1).slice(0, toInt(args[0]));
      case 'trimSuffix':
        return string(1).endsWith(string(0)) ? string(1).slice(0, string(1).length - string(0).length) : string(1);
      case 'nindent':
        return `\n${indentLines(toInt(args[0]), string(1))}`;
      case 'indent':
        return indentLines(toInt(args[0]), string(1));
      case 'quote':
        return args.map((arg) => goQuote(show(arg))).join(' ');
      case 'int':
        return toInt(args[0]);
      case 'toString':
        return show(args[0]);
      case 'join':
        return ((args[1] as Value[] | null) ?? []).map(show).join(string(0));
      case 'sha256sum':
        return createHash('sha256').update(string(0)).digest('hex');
      case 'toYaml':
        return args[0] === undefined || args[0] === null
          ? 'null'
          : stringify(args[0], { sortMapEntries: true, lineWidth: 0 }).replace(/\n$/, '');
      case 'not':
        return !truthy(args[0]);
      case 'and':
        return args.find((arg) => !truthy(arg)) ?? args[args.length - 1];
      case 'or':
        return args.find((arg) => truthy(arg)) ?? args[args.length - 1];
      case 'eq':
        return args.slice(1).some((arg) => arg === args[0]);
      case 'len':
        return Array.isArray(args[0]) ? args[0].length : typeof args[0] === 'string' ? args[0].length : Object.keys(args[0] ?? {}).length;
      default:
        void dot;
        throw new TemplateError(`function "${name}" not defined`);
    }
  }

  /** Template source by file name (for tests that look at one template's text). */
  source(file: string): string | undefined {
    return this.sources.get(file);
  }
}

const SILENT = Symbol('silent');
const NOTHING = Symbol('nothing');
