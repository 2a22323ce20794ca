# One image for every role: `crucible gateway | scheduler | worker | start`.
FROM node:20-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends git python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
ENV NODE_ENV=production
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["start"]
