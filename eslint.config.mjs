// ESLint for the app's browser scripts (assets/*.js) and their unit tests (tests/js/).
// Run: npx eslint . (pytest does: tests/tools/test_js.py). Versions pinned in package.json.
import js from "@eslint/js";
import globals from "globals";

export default [
  {ignores: ["build/", "dist/", "evalmaps/_share/", "benchmarks/lighthouse/", ".venv/"]},
  js.configs.recommended,
  {
    // classic scripts that Dash serves as they are: the syntax the browsers of today all run
    files: ["assets/**/*.js", "evalmaps/_bundle/**/*.js"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "script",
      globals: {
        ...globals.browser,
        Plotly: "readonly",  // plotly.js (read as window.Plotly)
        dash_clientside: "writable"  // Dash's clientside callbacks (window.dash_clientside)
      }
    },
    linterOptions: {reportUnusedDisableDirectives: "error"},
    rules: {
      "strict": ["error", "function"],
      "no-var": "error",
      "prefer-const": "error",
      "eqeqeq": "error",
      "no-implicit-globals": "error",
      "no-shadow": ["error", {builtinGlobals: false}],
      "no-use-before-define": ["error", {functions: false, variables: false}]
    }
  },
  {
    files: ["tests/js/**/*.js"],
    languageOptions: {ecmaVersion: 2022, sourceType: "commonjs", globals: {...globals.node}},
    rules: {"strict": ["error", "global"], "no-var": "error", "prefer-const": "error",
            "eqeqeq": "error"}
  },
  {
    files: ["eslint.config.mjs"],
    languageOptions: {sourceType: "module"}
  }
];
