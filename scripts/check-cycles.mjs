// No import circles (issue 20): for every package of ours, cargo-modules (crates.io) draws the
// "uses" graph between its modules (items folded into the module that defines them), and this
// script finds its strongly connected components (Tarjan). A component of two or more modules
// is an import circle: printed as a path, and the exit status is 1.
//
// Why not `cargo modules dependencies --acyclic`: it checks the graph of items, where a type
// and its own methods already form a circle (`DecodedEvent` owns `has_visible_reasoning`,
// which uses `DecodedEvent`), so it refuses every crate. Modules are the unit the layering is
// about. Usage: node scripts/check-cycles.mjs [package ...] (default: all of ours).
import { spawnSync } from 'node:child_process';

const NATIVE = ['ttft-stream', 'ttft-core', 'ttft-lab', 'ttft-tokens', 'ttft-sim'];
const WEB = ['ttft-web', 'ttft-widget', 'ttft-lab-page'];
const FILTERS = ['--no-externs', '--no-sysroot', '--no-fns', '--no-types', '--no-traits', '--no-owns'];

/** The module graph of `pkg`'s library as adjacency lists, from cargo-modules' dot output. */
function moduleGraph(pkg) {
  const target = WEB.includes(pkg) ? ['--target', 'wasm32-unknown-unknown'] : [];
  const run = spawnSync('cargo', ['modules', 'dependencies', '--lib', '-p', pkg, ...target, ...FILTERS], {
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
    const [, from, to] = match;
    if (from === to) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    if (!graph.has(to)) graph.set(to, new Set());
    graph.get(from).add(to);
  }
  return graph;
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

const packages = process.argv.length > 2 ? process.argv.slice(2) : [...NATIVE, ...WEB];
let total = 0;
for (const pkg of packages) {
  const graph = moduleGraph(pkg);
  const found = circles(graph);
  total += found.length;
  const modules = graph.size;
  if (found.length === 0) {
    console.log(`${pkg}: ${modules} modules, no import circle`);
  } else {
    console.log(`${pkg}: ${modules} modules, ${found.length} import circle(s):`);
    for (const component of found) console.log(`  ${pathAround(graph, component)}`);
  }
}
if (total > 0) {
  console.log(`\n${total} import circle(s): a module must not import, directly or through others, from a module that imports it. Move what both need into a module both import.`);
  process.exit(1);
}
