// No import circles (issue 20): for every package of ours, cargo-modules (crates.io) draws the
// "uses" graph between its modules (items folded into the module that defines them), this
// script adds the uses of constants, statics and enum variants that cargo-modules leaves out
// (read from the sources, below), and finds the graph's strongly connected components (Tarjan). A component
// of two or more modules is an import circle: printed as a path, and the exit status is 1.
//
// Why not `cargo modules dependencies --acyclic`: it checks the graph of items, where a type
// and its own methods already form a circle (`DecodedEvent` owns `has_visible_reasoning`,
// which uses `DecodedEvent`), so it refuses every crate. Modules are the unit the layering is
// about. Usage: node scripts/check-cycles.mjs [--manifest-path Cargo.toml] [package ...]
// (default: all of ours; with --manifest-path, every package of that workspace).
// scripts/check-cycles.test.mjs runs it on two small crates (scripts/check-cycles-fixtures/).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const NATIVE = ['ttft-stream', 'ttft-core', 'ttft-lab', 'ttft-tokens', 'ttft-sim', 'ttft-relay'];
const WEB = ['ttft-web', 'ttft-widget', 'ttft-lab-page'];
const FILTERS = ['--no-externs', '--no-sysroot', '--no-fns', '--no-types', '--no-traits', '--no-owns'];

/** The workspace's packages: name → {crate name, library root file}. */
function libraries(manifestPath) {
  const manifest = manifestPath ? ['--manifest-path', manifestPath] : [];
  const run = spawnSync('cargo', ['metadata', '--no-deps', '--format-version', '1', ...manifest], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`cargo metadata failed:\n${run.stderr}`);
  const found = new Map();
  for (const pkg of JSON.parse(run.stdout).packages) {
    const lib = pkg.targets.find((target) => target.kind.includes('lib') || target.kind.includes('rlib') || target.kind.includes('cdylib'));
    if (lib) found.set(pkg.name, { crateName: lib.name.replace(/-/g, '_'), rootFile: lib.src_path });
  }
  return found;
}

/** The module graph of `pkg`'s library as adjacency lists, from cargo-modules' dot output. */
function moduleGraph(pkg, manifestPath) {
  const target = WEB.includes(pkg) ? ['--target', 'wasm32-unknown-unknown'] : [];
  const manifest = manifestPath ? ['--manifest-path', manifestPath] : [];
  const run = spawnSync('cargo', ['modules', 'dependencies', '--lib', '-p', pkg, ...manifest, ...target, ...FILTERS], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) {
    throw new Error(`cargo modules failed for ${pkg} (is cargo-modules installed? scripts/setup.sh installs it):\n${run.stderr}`);
  }
  const graph = new Map();
  const edge = /^\s*"([^"]+)" -> "([^"]+)" \[label="uses"/;
  for (const line of run.stdout.split('\n')) {
    const match = edge.exec(line);
    if (!match) continue;
    addEdge(graph, match[1], match[2]);
  }
  return graph;
}

/** Adds `from` → `to` (not a loop); whether it was new. */
function addEdge(graph, from, to) {
  if (from === to) return false;
  if (!graph.has(from)) graph.set(from, new Set());
  if (!graph.has(to)) graph.set(to, new Set());
  if (graph.get(from).has(to)) return false;
  graph.get(from).add(to);
  return true;
}

// ---------------------------------------------------------------------------------------
// What cargo-modules leaves out: a module's `use` of a constant or a static (or of an enum's
// variants). Its graph has no node of its own for a const, a static or a variant (they are
// not owned by their module in its graph), so every "uses" edge to one is dropped with the
// node, with or without the --no-* filters: `use crate::server::GROUND_TRUTH_HEADERS` drew no
// edge from the module that wrote it to `server`. The sources are read here for those uses
// and each becomes a module-to-module edge like cargo-modules' own. As cargo-modules does by
// default, items under #[cfg(test)] are left out; other cfgs are not evaluated (a use under
// another cfg counts). Like cargo-modules, only `use` declarations count: a path written out
// inside a function's body (`crate::server::NAME`) is not seen by either.

/** Rust tokens: identifiers (`ident`), string literals (`str`) and punctuation (`punct`). */
export function lex(source) {
  const tokens = [];
  let at = 0;
  const length = source.length;
  const isIdentStart = (ch) => /[A-Za-z_\u0080-\uffff]/.test(ch);
  const isIdent = (ch) => /[A-Za-z0-9_\u0080-\uffff]/.test(ch);
  while (at < length) {
    const ch = source[at];
    const next = source[at + 1];
    if (/\s/.test(ch)) { at += 1; continue; }
    if (ch === '/' && next === '/') { while (at < length && source[at] !== '\n') at += 1; continue; }
    if (ch === '/' && next === '*') {
      let depth = 0;
      do {
        if (source[at] === '/' && source[at + 1] === '*') { depth += 1; at += 2; }
        else if (source[at] === '*' && source[at + 1] === '/') { depth -= 1; at += 2; }
        else at += 1;
      } while (depth > 0 && at < length);
      continue;
    }
    // Raw strings r"…", r#"…"#, br"…", cr"…" (and raw identifiers r#name).
    const raw = /^(?:b|c)?r(#*)"/.exec(source.slice(at, at + 260));
    if (raw) {
      const close = `"${raw[1]}`;
      const start = at + raw[0].length;
      const end = source.indexOf(close, start);
      tokens.push({ kind: 'str', text: source.slice(start, end < 0 ? length : end) });
      at = end < 0 ? length : end + close.length;
      continue;
    }
    if (ch === '"' || ((ch === 'b' || ch === 'c') && next === '"')) {
      let index = ch === '"' ? at + 1 : at + 2;
      let text = '';
      while (index < length && source[index] !== '"') {
        if (source[index] === '\\') { text += source.slice(index, index + 2); index += 2; } else { text += source[index]; index += 1; }
      }
      tokens.push({ kind: 'str', text });
      at = index + 1;
      continue;
    }
    if (ch === "'" || (ch === 'b' && next === "'")) {
      // A char literal ('a', '\n', '\u{1F600}', b'x') or a lifetime ('a, 'static).
      const start = ch === 'b' ? at + 1 : at;
      const literal = /^'(?:\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.)|[^\\'])'/su.exec(source.slice(start, start + 12));
      if (literal) { at = start + literal[0].length; continue; }
      at = start + 1;
      while (at < length && isIdent(source[at])) at += 1;
      continue;
    }
    if (ch === 'r' && next === '#' && isIdentStart(source[at + 2] ?? '')) {
      let index = at + 2;
      while (index < length && isIdent(source[index])) index += 1;
      tokens.push({ kind: 'ident', text: source.slice(at + 2, index) });
      at = index;
      continue;
    }
    if (isIdentStart(ch)) {
      let index = at;
      while (index < length && isIdent(source[index])) index += 1;
      tokens.push({ kind: 'ident', text: source.slice(at, index) });
      at = index;
      continue;
    }
    if (/[0-9]/.test(ch)) {
      let index = at;
      while (index < length && /[0-9A-Za-z_.]/.test(source[index]) && !(source[index] === '.' && source[index + 1] === '.')) index += 1;
      at = index;
      continue;
    }
    if (ch === ':' && next === ':') { tokens.push({ kind: 'punct', text: '::' }); at += 2; continue; }
    tokens.push({ kind: 'punct', text: ch });
    at += 1;
  }
  return tokens;
}

/** Skips a balanced group that opens at `tokens[at]`; returns the index after its close. */
function skipGroup(tokens, at) {
  const pairs = { '(': ')', '[': ']', '{': '}' };
  const closes = [pairs[tokens[at].text]];
  let index = at + 1;
  while (index < tokens.length && closes.length > 0) {
    const token = tokens[index];
    if (token.kind === 'punct') {
      if (pairs[token.text]) closes.push(pairs[token.text]);
      else if (token.text === closes[closes.length - 1]) closes.pop();
    }
    index += 1;
  }
  return index;
}

/** Skips to just after the `;` that ends a statement (brackets of every kind balanced). */
function skipPastSemicolon(tokens, at) {
  let index = at;
  while (index < tokens.length) {
    const token = tokens[index];
    if (token.kind === 'punct' && '([{'.includes(token.text)) { index = skipGroup(tokens, index); continue; }
    index += 1;
    if (token.kind === 'punct' && token.text === ';') break;
  }
  return index;
}

/** A use tree (the tokens between `use` and `;`) as paths: {path, glob, name}. */
function useTreePaths(tokens) {
  let at = 0;
  const out = [];
  const parse = (prefix) => {
    const path = [...prefix];
    if (tokens[at]?.text === '::') at += 1;
    for (;;) {
      const token = tokens[at];
      if (!token) break;
      if (token.text === '*') { at += 1; out.push({ path, glob: true }); return; }
      if (token.text === '{') {
        at += 1;
        while (tokens[at] && tokens[at].text !== '}') {
          parse(path);
          if (tokens[at]?.text === ',') at += 1;
        }
        at += 1;
        return;
      }
      if (token.kind !== 'ident') { at += 1; return; }
      at += 1;
      if (token.text === 'self' && path.length > 0 && prefix.length === path.length && tokens[at]?.text !== '::') {
        // `{self}` (or `{self as name}`): the prefix itself.
      } else {
        path.push(token.text);
      }
      if (tokens[at]?.text === '::') { at += 1; continue; }
      let name = path[path.length - 1];
      if (tokens[at]?.text === 'as') { name = tokens[at + 1]?.text; at += 2; }
      out.push({ path, glob: false, name });
      return;
    }
  };
  while (at < tokens.length) {
    const before = at;
    parse([]);
    if (tokens[at]?.text === ',') at += 1;
    if (at === before) at += 1;
  }
  return out;
}

/**
 * The modules of a library crate from its root file: for each module (`crate::a::b` written
 * with the crate's name, as cargo-modules labels it) its constants and statics, its enums,
 * its child modules and its `use` paths, #[cfg(test)] items left out.
 */
export function readModules(crateName, rootFile, readFile = (file) => readFileSync(file, 'utf8')) {
  const modules = new Map();
  const addModule = (name, parent) => {
    const module = { name, parent, values: new Set(), enums: new Set(), children: new Map(), uses: [] };
    modules.set(name, module);
    return module;
  };
  const parseFile = (file, module, childDir) => {
    let source;
    try { source = readFile(file); } catch { return; }
    const tokens = lex(source);
    parseItems(tokens, 0, tokens.length, module, childDir, path.dirname(file));
  };
  const parseItems = (tokens, start, end, module, childDir, fileDir) => {
    let at = start;
    while (at < end) {
      // Attributes: #[…] (and the file's inner #![…]).
      let testOnly = false;
      let pathAttribute = null;
      while (tokens[at]?.text === '#') {
        let open = at + 1;
        if (tokens[open]?.text === '!') open += 1;
        if (tokens[open]?.text !== '[') break;
        const close = skipGroup(tokens, open);
        const inner = tokens.slice(open + 1, close - 1);
        const words = inner.map((token) => token.text).join(' ');
        if (words === 'cfg ( test )') testOnly = true;
        if (inner[0]?.text === 'path' && inner[1]?.text === '=' && inner[2]?.kind === 'str') pathAttribute = inner[2].text;
        at = close;
      }
      if (at >= end) break;
      // Visibility.
      if (tokens[at].text === 'pub') {
        at += 1;
        if (tokens[at]?.text === '(') at = skipGroup(tokens, at);
      }
      const keyword = tokens[at]?.text;
      if (keyword === 'use') {
        const stop = skipPastSemicolon(tokens, at + 1);
        if (!testOnly) module.uses.push(...useTreePaths(tokens.slice(at + 1, stop - 1)));
        at = stop;
      } else if (keyword === 'mod' && tokens[at + 1]?.kind === 'ident') {
        const name = tokens[at + 1].text;
        const childName = `${module.name}::${name}`;
        if (tokens[at + 2]?.text === '{') {
          const close = skipGroup(tokens, at + 2);
          if (!testOnly) {
            const child = addModule(childName, module.name);
            module.children.set(name, childName);
            parseItems(tokens, at + 3, close - 1, child, path.join(childDir, name), fileDir);
          }
          at = close;
        } else {
          if (!testOnly) {
            const child = addModule(childName, module.name);
            module.children.set(name, childName);
            const candidates = pathAttribute !== null
              ? [path.join(fileDir, pathAttribute)]
              : [path.join(childDir, `${name}.rs`), path.join(childDir, name, 'mod.rs')];
            const file = candidates.find((candidate) => existsSync(candidate));
            if (file) {
              const base = path.basename(file);
              parseFile(file, child, base === 'mod.rs' ? path.dirname(file) : path.join(path.dirname(file), base.replace(/\.rs$/, '')));
            }
          }
          at = skipPastSemicolon(tokens, at);
        }
      } else if ((keyword === 'const' || keyword === 'static') && tokens[at + 1]?.kind === 'ident'
        && !['fn', 'unsafe', 'async', 'extern'].includes(tokens[at + 1].text)) {
        let nameAt = at + 1;
        if (tokens[nameAt].text === 'mut') nameAt += 1;
        if (!testOnly && tokens[nameAt]?.kind === 'ident' && tokens[nameAt + 1]?.text === ':') module.values.add(tokens[nameAt].text);
        at = skipPastSemicolon(tokens, at);
      } else {
        if (keyword === 'enum' && tokens[at + 1]?.kind === 'ident' && !testOnly) module.enums.add(tokens[at + 1].text);
        // Any other item: up to its `;`, or through its first `{…}` block outside parentheses.
        let index = at;
        while (index < end) {
          const token = tokens[index];
          if (token.kind === 'punct' && (token.text === '(' || token.text === '[')) { index = skipGroup(tokens, index); continue; }
          if (token.kind === 'punct' && token.text === '{') { index = skipGroup(tokens, index); break; }
          index += 1;
          if (token.kind === 'punct' && token.text === ';') break;
        }
        at = Math.max(index, at + 1);
      }
    }
  };
  const root = addModule(crateName, null);
  parseFile(rootFile, root, path.dirname(rootFile));
  return modules;
}

/**
 * The module a `use` path of `from` reaches for a constant, a static or an enum's variants,
 * following re-exports (`pub use`, globs included); null for anything else (a module, a
 * type, a function: cargo-modules has those) or for what is not ours.
 */
function valueModule(modules, from, segments, glob, depth = 0) {
  if (depth > 16) return null;
  let module = modules.get(from);
  let index = 0;
  const first = segments[0];
  if (first === 'crate') { module = modules.get([...modules.keys()][0]); index = 1; }
  else if (first === 'self') index = 1;
  else if (first === 'super') {
    while (segments[index] === 'super' && module) { module = modules.get(module.parent); index += 1; }
  } else if (!module.children.has(first)) {
    return null; // Another crate (or a name imported into scope: not followed).
  }
  while (module && index < segments.length && module.children.has(segments[index])) {
    module = modules.get(module.children.get(segments[index]));
    index += 1;
  }
  if (!module) return null;
  const rest = segments.slice(index);
  if (rest.length === 0) {
    // `use module::*`: its constants, statics and enums come into scope.
    return glob && (module.values.size > 0 || module.enums.size > 0) ? module.name : null;
  }
  const [name] = rest;
  if (module.values.has(name)) return module.name;
  if (module.enums.has(name)) return rest.length > 1 || glob ? module.name : null;
  for (const use of module.uses) {
    if (!use.glob && use.name === name) {
      return valueModule(modules, module.name, [...use.path, ...rest.slice(1)], glob, depth + 1);
    }
  }
  for (const use of module.uses) {
    if (use.glob) {
      const found = valueModule(modules, module.name, [...use.path, ...rest], glob, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/** Edges [from, to] for each module's `use` of another module's constant, static or variant. */
export function valueUseEdges(modules) {
  const edges = [];
  for (const module of modules.values()) {
    for (const use of module.uses) {
      const target = valueModule(modules, module.name, use.path, use.glob);
      if (target && target !== module.name) edges.push([module.name, target]);
    }
  }
  return edges;
}

/** Strongly connected components of two or more nodes (Tarjan, iterative). */
function circles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work = [[root, [...graph.get(root)], 0]];
    index.set(root, next); low.set(root, next); next += 1;
    stack.push(root); onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, targets] = frame;
      if (frame[2] < targets.length) {
        const target = targets[frame[2]];
        frame[2] += 1;
        if (!index.has(target)) {
          index.set(target, next); low.set(target, next); next += 1;
          stack.push(target); onStack.add(target);
          work.push([target, [...graph.get(target)], 0]);
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node), index.get(target)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found;
}

/** One path around a component, for the message: a → b → … → a. */
function pathAround(graph, component) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of graph.get(node)) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start].join(' → ');
      }
      if (!previous.has(target)) { previous.set(target, node); queue.push(target); }
    }
  }
  return component.join(', ');
}

function main(args) {
  let manifestPath = null;
  const named = [];
  for (let index = 0; index < args.length; index += 1) {
    if (args[index] === '--manifest-path') { manifestPath = args[index + 1]; index += 1; } else named.push(args[index]);
  }
  const libs = libraries(manifestPath);
  const packages = named.length > 0 ? named : manifestPath ? [...libs.keys()] : [...NATIVE, ...WEB];
  let total = 0;
  for (const pkg of packages) {
    const graph = moduleGraph(pkg, manifestPath);
    const lib = libs.get(pkg);
    if (!lib) throw new Error(`${pkg}: no library target in the workspace`);
    let added = 0;
    for (const [from, to] of valueUseEdges(readModules(lib.crateName, lib.rootFile))) {
      if (addEdge(graph, from, to)) added += 1;
    }
    const found = circles(graph);
    total += found.length;
    const modules = graph.size;
    const note = added > 0 ? ` (${added} of its edges from uses of constants, statics or variants)` : '';
    if (found.length === 0) {
      console.log(`${pkg}: ${modules} modules${note}, no import circle`);
    } else {
      console.log(`${pkg}: ${modules} modules${note}, ${found.length} import circle(s):`);
      for (const component of found) console.log(`  ${pathAround(graph, component)}`);
    }
  }
  if (total > 0) {
    console.log(`\n${total} import circle(s): a module must not import, directly or through others, from a module that imports it. Move what both need into a module both import.`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main(process.argv.slice(2));
