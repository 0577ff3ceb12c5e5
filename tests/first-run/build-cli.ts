/**
 * Builds svir the way `npm start` runs it (`dist/cli.js` next to `package.json`, plain node, no
 * TypeScript loader), but fast: every file of src/ is transpiled on its own (the project sets
 * isolatedModules, so that is what tsc emits; type errors are the typecheck's business). The
 * build goes under node_modules/.cache so that the package's dependencies resolve as they do
 * from dist/, and the shared dist/ is left alone.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface BuiltCli {
  /** The built `cli.js`. */
  cli: string;
  /** The package root of the build (holds package.json and dist/). */
  root: string;
  remove(): void;
}

const repo = fileURLToPath(new URL('../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

export function buildCli(): BuiltCli {
  const cache = join(repo, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const root = mkdtempSync(join(cache, 'svir-first-run-'));
  const parsed = ts.getParsedCommandLineOfConfigFile(join(repo, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error('cannot read tsconfig.build.json');
  const src = join(repo, 'src');
  for (const file of sourceFiles(src)) {
    const output = ts.transpileModule(readFileSync(file, 'utf8'), {
      // NodeNext picks the module format from the nearest package.json, which a lone file has
      // not: ESNext is what NodeNext emits for this `"type": "module"` package.
      compilerOptions: {
        ...parsed.options,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        sourceMap: false,
        declaration: false,
      },
      fileName: file,
    });
    const target = join(root, 'dist', relative(src, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, output.outputText);
  }
  copyFileSync(join(repo, 'package.json'), join(root, 'package.json'));
  return { cli: join(root, 'dist', 'cli.js'), root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
