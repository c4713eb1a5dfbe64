/* tslint:disable */
/* eslint-disable */
export const memory: WebAssembly.Memory;
export const answer_text: (a: number, b: number) => [number, number];
export const parse: (a: number, b: number, c: number) => number;
export const parse_sse_only: (a: number, b: number, c: number) => number;
export const __wbindgen_externrefs: WebAssembly.Table;
export const __wbindgen_malloc: (a: number, b: number) => number;
export const __wbindgen_free: (a: number, b: number, c: number) => void;
export const __wbindgen_start: () => void;
