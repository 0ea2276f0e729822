// Stylelint for every stylesheet of the app: the in-page components' (mha/app/components/*.css, read by
// mha/app/components/component.py) and the pages' own (mha/app/frame.css, mha/app/sections/check.css, ...). Only the
// rules that catch mistakes (stylelint-config-recommended: unknown properties, units and selectors, invalid
// colours, duplicates, shorthands that override), not a house style. Run: npm ci && npm run lint:css
// (scripts/test.sh does both before the tests).
export default {
  extends: ["stylelint-config-recommended"],
};
