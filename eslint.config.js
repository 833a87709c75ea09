// Lint rules picked for the bugs this codebase has had, not for style (Prettier owns layout):
// promises left unawaited in the stream relay and timers, `as` casts on request state, dead code.
// Type-aware: each file is typed by the same tsconfig `tsc` checks it with, so a rule sees real types.
// Every rule is an error and `npm run lint` allows no warning: a rule that is not worth failing on is not listed.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import { gatewayFloorsRule } from "./tests/unit/layering/gatewayFloors.mjs";

/** Plain scripts outside every tsconfig; the project service types them with a default program. */
const outsideTsconfigs = [
  "*.ts",
  "*.js",
  "scripts/*.mjs",
  "tests/unit/layering/*.mjs",
  "bench/*.mjs",
  "assets/*.mjs",
  "tests/chaos/*.mjs",
  "tests/integration/heap/*.mjs",
  "tests/security/*.cjs",
];

/** The product's own code, where a cast that narrows a type unchecked is a bug waiting on the wire. */
const productCode = ["main/**", "shared/**", "preload/**", "renderer/**"];

const bugRules = {
  // Promises: a dropped rejection kills the process (unhandledRejection); an async listener's rejection is lost.
  "@typescript-eslint/no-floating-promises": "error",
  "@typescript-eslint/no-misused-promises": "error",
  "@typescript-eslint/await-thenable": "error",
  "@typescript-eslint/return-await": ["error", "error-handling-correctness-only"],
  "@typescript-eslint/prefer-promise-reject-errors": "error",
  // ContractError is what the preload bridge rejects with: contextBridge drops an Error's own fields (R14.3).
  "@typescript-eslint/only-throw-error": ["error", { allow: [{ from: "file", name: "ContractError", path: "shared/contract.ts" }] }],
  "no-async-promise-executor": "error",
  // Dead and stale code: tsc here has neither noUnusedLocals nor noUnusedParameters.
  "@typescript-eslint/no-unused-vars": [
    "error",
    { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
  ],
  "@typescript-eslint/no-unused-private-class-members": "error",
  "@typescript-eslint/no-unused-expressions": "error",
  "@typescript-eslint/no-deprecated": "error",
  "no-unreachable": "error",
  "no-duplicate-imports": ["error", { allowSeparateTypeImports: true }],
  // Casts and types that lie.
  "@typescript-eslint/no-unnecessary-type-assertion": "error",
  "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
  "@typescript-eslint/no-base-to-string": "error",
  "@typescript-eslint/no-for-in-array": "error",
  "@typescript-eslint/no-array-delete": "error",
  "@typescript-eslint/no-implied-eval": "error",
  "@typescript-eslint/no-unsafe-unary-minus": "error",
  "@typescript-eslint/no-unsafe-enum-comparison": "error",
  "@typescript-eslint/no-duplicate-type-constituents": "error",
  "@typescript-eslint/no-redundant-type-constituents": "error",
  // Plain logic slips that type-checking lets through.
  eqeqeq: ["error", "smart"],
  "no-self-compare": "error",
  "no-self-assign": "error",
  "no-constant-binary-expression": "error",
  "no-constant-condition": "error",
  "no-cond-assign": "error",
  "no-dupe-else-if": "error",
  "no-unmodified-loop-condition": "error",
  "no-unsafe-finally": "error",
  "no-unsafe-optional-chaining": "error",
  "no-case-declarations": "error",
  "no-sparse-arrays": "error",
  "no-empty-pattern": "error",
  "no-global-assign": "error",
  "no-loss-of-precision": "error",
  "no-template-curly-in-string": "error",
  "no-misleading-character-class": "error",
  "no-useless-backreference": "error",
};

export default defineConfig(
  {
    ignores: ["dist/**", "node_modules/**", "bench/results/**", "bench/results.json", "test-artifacts/**", ".switchyard-test*/**", "renderer/public/**"],
  },
  {
    files: ["**/*.{ts,tsx,cts,mts,js,mjs,cjs}"],
    linterOptions: { reportUnusedDisableDirectives: "error" },
    languageOptions: {
      parser: tseslint.parser,
      // The first tsconfig that holds a file types it: main/shared/preload, then the renderer, then the tests.
      parserOptions: { project: ["tsconfig.json", "tsconfig.renderer.json", "tsconfig.tests.json"], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: bugRules,
  },
  {
    files: outsideTsconfigs,
    languageOptions: {
      parserOptions: {
        project: false,
        projectService: { allowDefaultProject: outsideTsconfigs, maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 40 },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: productCode,
    rules: { "@typescript-eslint/no-unsafe-type-assertion": "error" },
  },
  {
    // DESIGN.md "Gateway floors" (R22): imports point down only; tests/unit/layering/gatewayFloors.test.ts checks the same and the cycles.
    files: ["main/gateway/**/*.ts", "main/group/**/*.ts"],
    plugins: { switchyard: { rules: { "gateway-floors": gatewayFloorsRule } } },
    rules: { "switchyard/gateway-floors": "error" },
  },
  {
    // Tests cast parsed bodies and rows on purpose (a wrong cast fails the test's own expectations), but an
    // object literal cast to a type hides the fields a fixture forgot; annotate it or build it whole instead.
    ignores: productCode,
    rules: { "@typescript-eslint/consistent-type-assertions": ["error", { assertionStyle: "as", objectLiteralTypeAssertions: "allow-as-parameter" }] },
  },
  {
    files: ["renderer/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
);
