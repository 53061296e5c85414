// ESLint flat config. `npm run lint` runs it with --max-warnings 0, so a warning fails
// the check like an error.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";

export default tseslint.config(
  // bindings.ts is generated from the Rust commands (export-bindings); dist is the build.
  { ignores: ["dist/", "src/bindings.ts"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    // A disable comment that no longer suppresses anything is itself a finding.
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
);
