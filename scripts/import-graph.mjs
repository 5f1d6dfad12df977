/**
 * The imports between the TypeScript sources under a folder, read from their syntax trees (so an
 * import inside a comment or a string is no import). Used by scripts/check-layers.mjs.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import ts from 'typescript';

/** Extensions of the source files that are read; other files (SQL, CSS, HTML) import nothing. */
const SOURCE = /\.tsx?$/;

/** Extensions a relative specifier names a source file by (NodeNext writes `.js` for `.ts`). */
const SCRIPT = /\.(?:js|ts|tsx)$/;

/**
 * Every import of every `.ts` and `.tsx` file under `root/src`, type-only ones included, as
 * `{ from, to }` with both paths relative to `root` in `/` form (`src/job/state.ts`). Only
 * relative specifiers naming a script are followed; package imports and stylesheets are not edges
 * of the graph.
 *
 * @param root - the project folder the paths are relative to
 * @returns the files read, sorted, and their imports in file order
 * @throws Error when a relative specifier names no source file (a typo the checks must not skip)
 */
export function readImportGraph(root) {
  const files = readdirSync(join(root, 'src'), { recursive: true })
    .map((name) => posix.join('src', String(name).split(sep).join('/')))
    .filter((file) => SOURCE.test(file))
    .sort();
  const imports = [];
  for (const from of files) {
    for (const specifier of importsOf(join(root, from))) {
      if (!specifier.startsWith('.') || !SCRIPT.test(specifier)) continue;
      const to = resolveSource(root, from, specifier);
      if (to === undefined)
        throw new Error(`${from} imports ${specifier}, which is no source file`);
      imports.push({ from, to });
    }
  }
  return { files, imports };
}

/** The file a relative specifier of `from` names: `./a.js` is `a.ts` or `a.tsx`. */
function resolveSource(root, from, specifier) {
  const target = posix.join(posix.dirname(from), specifier);
  const stem = target.replace(SCRIPT, '');
  return [`${stem}.ts`, `${stem}.tsx`].find((file) => existsSync(join(root, file)));
}

/** The module specifiers of one file: import and export declarations, `import()` types and calls. */
function importsOf(path) {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const text = readFileSync(path, 'utf8');
  const tree = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  const found = [];
  const visit = (node) => {
    const specifier = specifierOf(node);
    if (specifier !== undefined) found.push(specifier);
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

/** The module a node imports from, if it imports; type-only imports too (`import type`, `import('…').T`). */
function specifierOf(node) {
  if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
    const specifier = node.moduleSpecifier;
    return specifier !== undefined && ts.isStringLiteral(specifier) ? specifier.text : undefined;
  }
  if (ts.isImportTypeNode(node)) {
    const argument = node.argument;
    return ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)
      ? argument.literal.text
      : undefined;
  }
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const [argument] = node.arguments;
    return argument !== undefined && ts.isStringLiteral(argument) ? argument.text : undefined;
  }
  return undefined;
}
