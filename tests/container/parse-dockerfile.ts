/**
 * A small Dockerfile reader for the container test: enough of the syntax to check what the
 * image does (instructions, line continuations, comments, stages, exec-form JSON arguments),
 * not a full BuildKit parser. Docker cannot run where the tests run, so the file is read instead.
 */

export interface DockerInstruction {
  /** Upper-cased keyword: FROM, RUN, COPY, USER, ... */
  keyword: string;
  /** Everything after the keyword, continuations joined with a space. */
  args: string;
  /** 1-based line where the instruction starts, for failure messages. */
  line: number;
}

export interface DockerStage {
  /** The image named by FROM (tag included), e.g. `node:26-slim`. */
  image: string;
  /** The `AS name`, when given. */
  name: string | undefined;
  instructions: DockerInstruction[];
}

export interface ParsedDockerfile {
  stages: DockerStage[];
}

const CONTINUATION = /\\\s*$/;

/** Splits the text into instructions: comments and blank lines dropped, `\` continuations joined. */
function readInstructions(text: string): DockerInstruction[] {
  const instructions: DockerInstruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const trimmed = raw.trim();
    // A comment line inside a continued instruction is skipped, as Docker does.
    if (trimmed.startsWith('#')) return;
    if (trimmed === '' && pending === undefined) return;
    const piece = trimmed.replace(CONTINUATION, '').trim();
    const joined = pending === undefined ? { text: piece, line: i + 1 } : { text: `${pending.text} ${piece}`.trim(), line: pending.line };
    if (CONTINUATION.test(trimmed)) {
      pending = joined;
      return;
    }
    pending = undefined;
    const match = /^(\S+)\s*(.*)$/.exec(joined.text);
    if (match === null) return;
    instructions.push({ keyword: (match[1] ?? '').toUpperCase(), args: match[2] ?? '', line: joined.line });
  });
  if (pending !== undefined) throw new Error(`Dockerfile ends inside a continued instruction (line ${pending.line})`);
  return instructions;
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const stages: DockerStage[] = [];
  for (const instruction of readInstructions(text)) {
    if (instruction.keyword === 'FROM') {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'));
      const image = words[0];
      if (image === undefined) throw new Error(`FROM without an image (line ${instruction.line})`);
      const asIndex = words.findIndex((word) => word.toUpperCase() === 'AS');
      stages.push({ image, name: asIndex >= 0 ? words[asIndex + 1] : undefined, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    // ARG before the first FROM is the only instruction allowed there.
    if (stage === undefined) {
      if (instruction.keyword !== 'ARG') throw new Error(`${instruction.keyword} before FROM (line ${instruction.line})`);
      continue;
    }
    stage.instructions.push(instruction);
  }
  return { stages };
}

/** The command of an exec-form (`["a","b"]`) or shell-form argument, as a list of words. */
export function commandWords(args: string): string[] {
  const trimmed = args.trim();
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed) || !parsed.every((word): word is string => typeof word === 'string')) {
      throw new Error(`exec form is not a list of strings: ${trimmed}`);
    }
    return parsed;
  }
  return trimmed.split(/\s+/);
}
