/* tslint:disable */
/* eslint-disable */

/**
 * The answer text ttft-core extracted, to check both parsers agree.
 */
export function answer_text(bytes: Uint8Array | number[]): string;

/**
 * Parses `bytes` in reads of `chunk` bytes (0 = one read) and returns the event count.
 */
export function parse(bytes: Uint8Array | number[], chunk: number): number;

/**
 * The SSE layer alone (no JSON, no dialect): where the time goes. Events are borrowed, as
 * `StreamReader` takes them; the data's length is summed so that nothing is optimised away.
 */
export function parse_sse_only(bytes: Uint8Array | number[], chunk: number): number;

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly answer_text: (a: number, b: number) => [number, number];
    readonly parse: (a: number, b: number, c: number) => number;
    readonly parse_sse_only: (a: number, b: number, c: number) => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
