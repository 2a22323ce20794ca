# One image for every role: `crucible gateway | scheduler | worker | start`.
# Built from the checkout with no network: run `npm ci` first (node_modules holds native addons
# built for this machine's Node, so BASE must run the same Node major and a C library at least
# as new), then `docker compose build` (or `podman build .`). dist/ and the console are
# compiled here, from the sources and node_modules of the checkout.
#   BASE: any image with Node at /usr/bin/node or on PATH; the default is Node 20 on Debian 12.
#   scripts/compose-images.sh builds one from this machine's Node alone (no image pulled).
ARG BASE=node:20-bookworm-slim
FROM ${BASE}
WORKDIR /app
COPY . .
# exec forms: the base needs no shell
RUN ["node", "node_modules/typescript/bin/tsc", "-p", "tsconfig.json"]
RUN ["node", "node_modules/vite/bin/vite.js", "build", "--config", "console/vite.config.ts", "--logLevel", "warn"]
ENV NODE_ENV=production
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["start"]
