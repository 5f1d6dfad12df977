/**
 * The two checks of the ground plan over an import graph: imports run only downwards through the
 * layers, and no files import each other in a cycle. Run by scripts/check-layers.mjs.
 */
import { readImportGraph } from './import-graph.mjs';
import { ALLOWED, LAYERS } from './layers.mjs';

/**
 * The problems of the sources under `root/src`, one sentence each; none when the plan holds.
 * Type-only imports count: a type from a layer above is a dependency on it all the same.
 *
 * @param root - the project folder holding `src/`
 * @param allowed - the imports let pass, `{ from, to }`; default `ALLOWED` of scripts/layers.mjs
 * @returns the problems: files in no layer, upward imports, cycles, stale allowances, each
 *   kind in file order
 */
export function checkLayers(root, allowed = ALLOWED) {
  const { files, imports } = readImportGraph(root);
  const passed = new Set(allowed.map((entry) => edgeKey(entry)));
  const problems = [];
  const unplaced = files.filter((file) => layerOf(file) === undefined);
  for (const file of unplaced) problems.push(`${file} is in no layer of scripts/layers.mjs`);
  const kept = imports.filter((edge) => !passed.has(edgeKey(edge)));
  for (const { from, to } of kept) {
    const source = layerOf(from);
    const target = layerOf(to);
    if (source === undefined || target === undefined || target.rank >= source.rank) continue;
    problems.push(
      `${from} (layer "${source.part}") imports ${to} (layer "${target.part}", above it): ` +
        'imports run only downwards (docs/architecture.md, "Rooms")',
    );
  }
  for (const cycle of findCycles(files, kept)) {
    problems.push(`import cycle: ${cycle.join(' → ')}`);
  }
  const made = new Set(imports.map((edge) => edgeKey(edge)));
  for (const entry of allowed) {
    if (!made.has(edgeKey(entry))) {
      problems.push(`allowed import ${entry.from} → ${entry.to} is no longer made: remove it`);
    }
  }
  return problems;
}

/** One import as a set key; an import and its allowance have the same key. */
function edgeKey({ from, to }) {
  return `${from} ${to}`;
}

/** The layer of a file (`part` and `rank`, 0 at the top), by the longest path that holds it. */
function layerOf(file) {
  let best;
  LAYERS.forEach(({ part, paths }, rank) => {
    for (const path of paths) {
      const holds = path.endsWith('/') ? file.startsWith(path) : file === path;
      if (holds && (best === undefined || path.length > best.length))
        best = { part, rank, length: path.length };
    }
  });
  return best;
}

/**
 * One cycle for each group of files that reach each other through imports (a strongly connected
 * component, found with Tarjan's algorithm): the shortest way from the group's first file back to
 * itself, so that the message shows a path to cut rather than the whole group.
 */
function findCycles(files, imports) {
  const next = new Map(files.map((file) => [file, []]));
  for (const { from, to } of imports) next.get(from)?.push(to);
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const visit = (file) => {
    index.set(file, index.size);
    low.set(file, index.get(file));
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file), low.get(to)));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file), index.get(to)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    for (const member of group) onStack.delete(member);
    const selfImport = next.get(file)?.includes(file) ?? false;
    if (group.length > 1 || selfImport) groups.push(group.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return groups.sort((a, b) => a[0].localeCompare(b[0])).map((group) => shortestCycle(group, next));
}

/** The shortest path from the first file of a group through the group back to it (breadth first). */
function shortestCycle(group, next) {
  const members = new Set(group);
  const start = group[0];
  const previous = new Map();
  const queue = [start];
  while (!previous.has(start)) {
    const file = queue.shift();
    for (const to of next.get(file)) {
      if (!members.has(to) || previous.has(to)) continue;
      previous.set(to, file);
      queue.push(to);
    }
  }
  const back = [];
  for (let file = previous.get(start); file !== start; file = previous.get(file)) back.push(file);
  return [start, ...back.reverse(), start];
}
