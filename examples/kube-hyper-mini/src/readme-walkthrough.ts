/** One `$ command` of a README console block and what the README shows it printing. */
export interface WalkthroughStep {
  command: string;
  /** The lines under the command, up to the next command or the end of the block. */
  output: string;
}

/** The `$ ...` commands of every ```console block of a README, each with the output written under it. */
export function walkthroughSteps(readme: string): WalkthroughStep[] {
  const steps: WalkthroughStep[] = [];
  for (const block of readme.matchAll(/^```console\n([\s\S]*?)^```$/gm)) {
    let current: { command: string; lines: string[] } | undefined;
    for (const line of block[1]!.replace(/\n$/, "").split("\n")) {
      if (line.startsWith("$ ")) {
        if (current) steps.push({ command: current.command, output: current.lines.join("\n") });
        current = { command: line.slice(2), lines: [] };
      } else if (current) {
        current.lines.push(line);
      }
    }
    if (current) steps.push({ command: current.command, output: current.lines.join("\n") });
  }
  return steps;
}

/** A command line's words as a shell splits them: on unquoted whitespace, quotes removed (`-o jsonpath='{.x}'`). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in ${command}`);
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = "";
      for (i++; i < command.length && command[i] !== '"'; i++) text += command[i] === "\\" ? command[++i] : command[i];
      if (i >= command.length) throw new Error(`unterminated " in ${command}`);
      word = (word ?? "") + text;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * Output as compared: trailing spaces and blank lines at the end dropped, and ages (`5s`, `2m3s`)
 * replaced, since they depend on when the command ran.
 */
export function comparable(output: string): string {
  return output
    .split("\n")
    .map((line) => line.replace(/\s+$/, "").replace(/(?<=\s)(\d+[smhd])+(?=\s|$)/g, "<age>"))
    .join("\n")
    .replace(/\n+$/, "");
}
