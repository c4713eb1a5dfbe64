#!/usr/bin/env bash
# Trunk.toml's post_build hook (hooks of one stage run at the same time, so this one does
# both steps in order):
# 1. builds the lab (lab.html, Trunk.lab.toml) with the same profile and puts it in the
#    staged page's lab/ folder: the widget (index.html) opens it on request;
# 2. on release builds, minifies the widget's JS glue and fetch worker
#    (scripts/minify-js.mjs, terser: Trunk's minifier cannot parse the glue);
# 3. writes the widget's Chinese texts beside it (zh.json, scripts/zh-catalogue.mjs);
# 4. writes the precompressed copies of every file (scripts/precompress.mjs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
stage=${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}
release=()
[ "${TRUNK_PROFILE:-debug}" = release ] && release=(--release)
env -u TRUNK_HTML_FILE -u TRUNK_SOURCE_DIR -u TRUNK_STAGING_DIR -u TRUNK_DIST_DIR -u TRUNK_PUBLIC_URL \
  trunk --config Trunk.lab.toml build "${release[@]}"
rm -rf "$stage/lab"
cp -R target/lab-dist "$stage/lab"
[ ${#release[@]} -eq 0 ] || node scripts/minify-js.mjs "$stage"
# The widget's second language, loaded when it first shows Chinese (ttft-core zh-on-demand).
node scripts/zh-catalogue.mjs "$stage"
node scripts/precompress.mjs "$stage"
