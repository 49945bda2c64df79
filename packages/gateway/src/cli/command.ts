/**
 * The shape of one `gatehouse <command>` (cli/index.ts lists them): it runs with the words after the
 * command's name.
 */
export type Command = (args: string[]) => Promise<void>;
