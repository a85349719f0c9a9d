// The type-aware lint (`npm run lint`). typescript-eslint, because its type-checked rules run on the
// project's own TypeScript (the same checker as `tsc`), and the rules that matter for a storage
// library are about promises: a floating write or fsync is a lost error, a promise passed where a
// callback returns void is an unhandled rejection. Style is prettier's job; unused names are tsc's
// (noUnusedLocals/noUnusedParameters). Only rules with a reason below are on.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

/** Rules that need types: each one catches a bug class, not a style. */
const typeAwareRules = {
  // A promise that nobody awaits loses its rejection (a failed fsync is silently "durable").
  "@typescript-eslint/no-floating-promises": ["error", { checkThenables: true }],
  // An async function where a void callback is expected: its rejection escapes every try/catch.
  "@typescript-eslint/no-misused-promises": "error",
  // `await` on a value that is not a thenable is a misread of an API (sync thought async).
  "@typescript-eslint/await-thenable": "error",
  // A cast the checker already knows is dead weight that hides a later type change.
  "@typescript-eslint/no-unnecessary-type-assertion": "error",
  // A `switch` over a union must handle every member: a new error code or record kind is not
  // silently ignored. Unions only; a `default` is fine where one is meant.
  "@typescript-eslint/switch-exhaustiveness-check": [
    "error",
    { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
  ],
  // Rejections and throws carry an Error (a stack, a PagelogError code), never a string.
  // Passing on a caught `unknown` is allowed: a user's Storage may throw anything, and pagelog
  // rethrows it unchanged (the error is theirs).
  "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
  "@typescript-eslint/only-throw-error": ["error", { allowThrowingUnknown: true, allowRethrowing: true }],
  // `return promise` inside try/catch skips the catch: await it there.
  "@typescript-eslint/return-await": ["error", "in-try-catch"],
};

export default defineConfig(
  {
    ignores: ["dist/**", "node_modules/**", "coverage/**", ".tmp/**", "web/dist/**", "test/fixtures/**", "**/*.d.mts"],
  },
  {
    files: ["src/**/*.ts", "test/**/*.ts", "web/src/**/*.ts", "bench/**/*.ts", "*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: typeAwareRules,
  },
  {
    // Plain scripts have no types to check: only the syntax-level rules that do not need them.
    files: ["**/*.mjs"],
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-unreachable": "error",
      "no-dupe-keys": "error",
      "no-self-assign": "error",
      "no-cond-assign": "error",
      "no-constant-condition": ["error", { checkLoops: false }],
      "no-async-promise-executor": "error",
    },
  },
);
