/** Types of install.mjs (a plain module, so that scripts/test.mjs can load it without a TypeScript loader). */
export declare const AGENTS_DIR: string;
export declare function agentsInstalled(): boolean;
export declare function ensureAgents(log?: (line: string) => void): boolean;
