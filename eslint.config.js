// ESLint for the in-page components (mha/app/components/*.js, read by mha/app/components/component.py) and the
// bench's page scripts (bench/*.js). Run: npm ci && npm run lint (scripts/test.sh does both before the tests).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["mha/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      eqeqeq: ["error", "smart"],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
  {
    files: ["bench/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: { ...globals.browser } },
    rules: { eqeqeq: ["error", "smart"], "no-var": "error", "prefer-const": "error" },
  },
];
