/*
 * The key of `Log` and `LogDir`'s `await using` method, typed so that the published .d.ts
 * compiles on every `lib`: where the reader's lib (esnext.disposable, or @types/node) declares
 * `Symbol.asyncDispose`, the key is that symbol and `await using` works; on lib es2022 without
 * it, the key is a symbol of pagelog's own, and nothing is added to the reader's global types
 * (a `/// <reference lib>` would add the whole disposable lib to every project that imports us).
 */

/** Where the runtime has no `Symbol.asyncDispose` (older browsers): the registry's symbol of that name. */
const fallbackAsyncDispose: unique symbol = Symbol.for("Symbol.asyncDispose");

/** `C["asyncDispose"]` when `C` has it, else `typeof fallbackAsyncDispose`: generic, so the true
 * branch may index `C` even on a lib where `SymbolConstructor` has no such property. */
type AsyncDisposeOf<C> = C extends { readonly asyncDispose: symbol } ? C["asyncDispose"] : typeof fallbackAsyncDispose;

/** `typeof Symbol.asyncDispose` when the lib declares it, else `typeof fallbackAsyncDispose`. */
type AsyncDisposeSymbol = AsyncDisposeOf<SymbolConstructor>;

/**
 * The key of `Log`'s and `LogDir`'s `await using` method: `Symbol.asyncDispose` where the runtime has it, else the
 * registry's symbol of that name.
 */
export const asyncDispose: AsyncDisposeSymbol = ((Symbol as { asyncDispose?: symbol }).asyncDispose ??
  fallbackAsyncDispose) as AsyncDisposeSymbol;
