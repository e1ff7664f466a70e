# The image API as a container: the Strapi app with the plugin, built for production.
# Written to work but never run here (this machine has no Docker); see docs/deployment.md.
#
#   docker build -t image-api .
#   docker compose up            (docker-compose.yml: 2 instances, nginx, PostgreSQL, Redis, MinIO)

FROM node:24-bookworm-slim AS build
WORKDIR /app
# sharp ships its native binary in an npm package; nothing else needs a compiler.
COPY package.json package-lock.json ./
COPY plugins/image-api/package.json plugins/image-api/
RUN npm ci --no-audit --no-fund
# SQLite's driver 12.x (the lockfile's, for CI's Node 20) aborts on Node 24.19+: 13 on this line
# (docs/deployment.md, "Node lines").
RUN npm install --no-save --no-audit --no-fund better-sqlite3@13.2.0
COPY . .
# The admin panel and the server are built once, into dist/; secrets come at run time. The build
# loads the configuration, which in production requires PUBLIC_URL: the admin bundle uses only its
# path (the panel calls the origin it was loaded from), so any absolute URL will do here.
RUN npm run build:plugin && NODE_ENV=production PUBLIC_URL=http://localhost npx strapi build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
# heif-convert decodes HEIC uploads natively, about twice as fast as the WebAssembly fallback
# (docs/operations.md, "HEIC decoding"); prlimit (util-linux) is already there.
RUN apt-get update && apt-get install -y --no-install-recommends libheif-examples && rm -rf /var/lib/apt/lists/*
# Two malloc arenas and a fixed mmap threshold: glibc's defaults keep freed image buffers (docs/deployment.md).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=1337 MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
COPY --from=build /app /app
# No .env in the image: every secret comes from the environment (see docker-compose.yml).
RUN rm -f .env && chown -R node:node /app
USER node
EXPOSE 1337
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/_health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "node_modules/@strapi/strapi/bin/strapi.js", "start"]
