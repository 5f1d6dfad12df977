/**
 * The public surface of declaration files as plain text, read with the TypeScript compiler API:
 * for each entry point, every exported name with its kind and its declaration as TypeScript
 * prints it, then the package's own declarations those reach without exporting them. Used by
 * scripts/api-report.mjs; builds nothing, so it reads what `npm run build` left in dist/.
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import ts from 'typescript';

/** The word the report gives each kind of declaration. */
const KIND = new Map([
  [ts.SyntaxKind.FunctionDeclaration, 'function'],
  [ts.SyntaxKind.ClassDeclaration, 'class'],
  [ts.SyntaxKind.InterfaceDeclaration, 'interface'],
  [ts.SyntaxKind.TypeAliasDeclaration, 'type'],
  [ts.SyntaxKind.EnumDeclaration, 'enum'],
  [ts.SyntaxKind.ModuleDeclaration, 'namespace'],
]);

/** Modifiers that say where a declaration is written, not what it is: left out of the report. */
const PLACEMENT = new Set([
  ts.SyntaxKind.ExportKeyword,
  ts.SyntaxKind.DeclareKeyword,
  ts.SyntaxKind.DefaultKeyword,
]);

/**
 * The report of each entry point: a header naming it, one section per exported name (sorted by
 * name), then one per declaration of the package that an export's declaration names without the
 * entry point exporting it (sorted by name, then file), so that a change to such a shape shows too.
 * A section is `## name: kind` over the declaration printed without comments, `export` or
 * `declare`; classes keep their public members only. Paths are relative to `root` and
 * sorting compares code units, so the text is the same on every machine and every run.
 *
 * @param root - the project folder; every path in the report is relative to it
 * @param entries - the entry points, `{ name, types }` with `types` a `.d.ts` path relative to
 *   `root` (for `chokaq/postgres`, `dist/storage/postgres/index.d.ts`)
 * @returns one text per entry point, `{ name, text }`, in the order given; each ends in a newline
 * @throws Error when a declaration file is missing (`npm run build` first) or is not a module
 */
export function apiSurface(root, entries) {
  const files = entries.map((entry) => resolve(root, entry.types));
  const missing = files.find((file) => !existsSync(file));
  if (missing !== undefined)
    throw new Error(`${portable(root, missing)} not found: run \`npm run build\` first`);
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    // The project's own lib (tsconfig.json): the declarations need no DOM, and loading it is slow.
    lib: ['lib.es2023.d.ts'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  return entries.map((entry, at) => {
    const source = program.getSourceFile(files[at]);
    const module = source && checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${entry.types} is not a module`);
    const exported = checker
      .getExportsOfModule(module)
      .map((symbol) => ({ name: symbol.name, target: resolveAlias(checker, symbol) }));
    const sections = sortByName(exported).map(({ name, target }) => {
      const declarations = shapesOf(target);
      return section(`${name}: ${kindsOf(declarations)}`, declarations, printer);
    });
    const inside = reachedShapes(checker, exported, root).map(({ name, file, declarations }) =>
      section(`${name}: ${kindsOf(declarations)} (${file})`, declarations, printer),
    );
    // No count of exports in the head: an added export then shows as its own lines alone.
    const head = `# ${entry.name} (${entry.types})`;
    const tail = inside.length === 0 ? [] : ['# Not exported, named by the declarations above'];
    return { name: entry.name, text: [head, ...sections, ...tail, ...inside].join('\n\n') + '\n' };
  });
}

/**
 * The declarations of the package that the exports name, directly or through each other, but do
 * not export themselves: `{ name, file, declarations }` sorted by name, then file.
 */
function reachedShapes(checker, exported, root) {
  const seen = new Set(exported.map(({ target }) => target));
  const reached = [];
  const queue = exported.flatMap(({ target }) => shapesOf(target));
  while (queue.length > 0) {
    for (const symbol of namedSymbols(checker, queue.shift())) {
      const declarations = shapesOf(symbol).filter((node) => isOwn(root, node));
      if (seen.has(symbol) || declarations.length === 0) continue;
      seen.add(symbol);
      const file = declarations[0].getSourceFile().fileName;
      reached.push({ name: symbol.name, file: portable(root, file), declarations });
      queue.push(...declarations);
    }
  }
  return reached.sort((a, b) => compare(a.name, b.name) || compare(a.file, b.file));
}

/** The symbol an export stands for: through `export { x } from` chains to the declaration. */
function resolveAlias(checker, symbol) {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** The top-level declarations of a symbol that the report prints, in source order. */
function shapesOf(symbol) {
  return (symbol.declarations ?? []).filter(
    (node) => kindOf(node) !== undefined && isTopLevel(node),
  );
}

/** Whether a declaration stands at the top of its file (not a member, parameter or local). */
function isTopLevel(node) {
  const statement = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  return ts.isSourceFile(statement.parent);
}

/** The kinds of a symbol's declarations, joined by ` + ` (`interface + const`). */
function kindsOf(declarations) {
  return [...new Set(declarations.map(kindOf))].join(' + ');
}

/** The kind of a declaration (`const` or `let` for a variable); undefined for other nodes. */
function kindOf(node) {
  return ts.isVariableDeclaration(node) ? variableKeyword(node) : KIND.get(node.kind);
}

/** One section: its title line, then each declaration as TypeScript prints it. */
function section(title, declarations, printer) {
  const printed = declarations.map((node) => {
    const shown = withoutPlacement(node);
    const text = printer.printNode(ts.EmitHint.Unspecified, shown, node.getSourceFile());
    if (!ts.isVariableDeclaration(node)) return text;
    return `${variableKeyword(node)} ${text};`;
  });
  return [`## ${title}`, ...printed].join('\n');
}

/** `const` or `let`, as the variable is declared (declaration files write `var` as `let`). */
function variableKeyword(node) {
  return node.parent.flags & ts.NodeFlags.Const ? 'const' : 'let';
}

/**
 * A declaration without its placement modifiers and, for a class, without its hidden members
 * (private names are even emitted without types): they are no part of what callers can use.
 */
function withoutPlacement(node) {
  if (ts.isVariableDeclaration(node)) return node;
  const modifiers = node.modifiers?.filter((modifier) => !PLACEMENT.has(modifier.kind));
  const bare = ts.factory.replaceModifiers(node, modifiers ?? []);
  if (!ts.isClassDeclaration(bare)) return bare;
  const members = bare.members.filter((member) => !isHidden(member));
  return ts.factory.updateClassDeclaration(
    bare,
    bare.modifiers,
    bare.name,
    bare.typeParameters,
    bare.heritageClauses,
    members,
  );
}

/**
 * Whether a class member is hidden from callers: `private`, `#private` or `protected` (the
 * classes are not made to be extended, so protected members are their internals too).
 */
function isHidden(member) {
  if (member.name !== undefined && ts.isPrivateIdentifier(member.name)) return true;
  const hidden = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;
  return (ts.getCombinedModifierFlags(member) & hidden) !== 0;
}

/**
 * The symbols a declaration names (types, heritage, `typeof` targets), through aliases. A class's
 * hidden members are skipped, as in the printed text.
 */
function namedSymbols(checker, declaration) {
  const found = [];
  const visit = (node) => {
    if (ts.isClassElement(node) && isHidden(node)) return;
    if (ts.isIdentifier(node)) {
      const symbol = checker.getSymbolAtLocation(node);
      if (symbol !== undefined) found.push(resolveAlias(checker, symbol));
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(declaration, visit);
  return found;
}

/** Whether a declaration is the package's own: in a file under `root`, outside node_modules. */
function isOwn(root, node) {
  const path = portable(root, node.getSourceFile().fileName);
  return !path.startsWith('../') && !path.split('/').includes('node_modules');
}

/** A path relative to `root` with `/` between its parts, whatever the platform. */
function portable(root, fileName) {
  return relative(root, fileName).split('\\').join('/');
}

/** Entries sorted by `name`, comparing code units (no locale, so every machine agrees). */
function sortByName(entries) {
  return [...entries].sort((a, b) => compare(a.name, b.name));
}

/** -1, 0 or 1 as `a` sorts before, with or after `b` by code units. */
function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
