/**
 * The architecture, checked on every `npm test`: the domain is pure, ports depend only on the
 * domain, use cases never see an adapter, and the HTTP edge reaches the world through use cases.
 * Only src/compose.ts (the composition root) and src/cli.ts may pick adapters.
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing but itself: no node: modules, no packages, no other layer.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'ports-depend-on-domain-only',
      severity: 'error',
      from: { path: '^src/ports/' },
      to: { pathNot: '^src/(domain|ports)/' },
    },
    {
      name: 'app-uses-ports-not-adapters',
      comment: 'Use cases talk to storage, payments, clocks through ports; never to an adapter, the edge or a driver.',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: ['^src/(adapters|http)/', '^src/(compose|cli|config)\\.ts$', 'node_modules/(better-sqlite3|fastify|prom-client)'] },
    },
    {
      name: 'adapters-do-not-reach-up',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: ['^src/(app|http)/', '^src/(compose|cli)\\.ts$'] },
    },
    {
      name: 'http-does-not-pick-adapters',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: ['^src/adapters/', '^src/(compose|cli)\\.ts$'] },
    },
    {
      name: 'lib-is-generic',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/(domain|ports|adapters|app|http)/' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    { name: 'no-orphans', severity: 'error', from: { orphan: true, pathNot: ['\\.d\\.ts$', '^src/cli\\.ts$'] }, to: {} },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.build.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
    includeOnly: '^(src|node_modules)/',
  },
};
