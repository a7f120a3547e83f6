// Installed before the app loads (page.add_init_script). Every server event the app parses
// (JSON.parse of an object whose `type` the schema knows) is handed back wrapped in proxies
// that note each read of a field the event schema does not declare, nested records too:
// reading `case.stdout` when the server sends `actual` lands in window.__vivaEventViolations.
(schema) => {
  const defs = schema.$defs;
  const byType = new Map();
  for (const member of schema.oneOf) {
    const def = defs[member.$ref.split('/').pop()];
    byType.set(def.properties.type.const, def);
  }
  const violations = [];
  window.__vivaEventViolations = violations;
  // Reads that are about the object, not a field (serialization, promise checks, the prototype).
  const neutral = new Set(['toJSON', 'then', 'constructor', '__proto__', 'length']);

  const resolve = (node) => {
    while (node && node.$ref) node = defs[node.$ref.split('/').pop()];
    if (node && (node.anyOf || node.oneOf)) {
      const members = (node.anyOf || node.oneOf).map(resolve);
      return members.find((m) => m && (m.type === 'object' || m.type === 'array' || m.properties)) || null;
    }
    return node || null;
  };
  const note = (path, prop) => {
    const where = `${path}.${prop}`;
    if (!violations.includes(where)) violations.push(where);
  };
  const cache = new WeakMap();

  function wrap(value, schemaNode, path) {
    const node = resolve(schemaNode);
    if (!node || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      return node.type === 'array' ? value.map((item) => wrap(item, node.items, `${path}[]`)) : value;
    }
    if (cache.has(value)) return cache.get(value);
    const props = node.properties || null;
    const extra = node.additionalProperties;
    const known = (p) =>
      typeof p !== 'string' || neutral.has(p) || p in Object.prototype || (props ? p in props : extra !== false);
    const proxy = new Proxy(value, {
      get(target, prop, receiver) {
        if (!known(prop)) note(path, prop);
        const got = Reflect.get(target, prop, receiver);
        if (typeof prop !== 'string') return got;
        const child = props ? props[prop] : typeof extra === 'object' ? extra : null;
        return child ? wrap(got, child, `${path}.${prop}`) : got;
      },
      has(target, prop) {
        if (!known(prop)) note(path, prop);
        return Reflect.has(target, prop);
      },
    });
    cache.set(value, proxy);
    return proxy;
  }

  const parse = JSON.parse;
  JSON.parse = function (text, reviver) {
    const value = parse.call(this, text, reviver);
    if (value && typeof value === 'object' && !Array.isArray(value) && byType.has(value.type)) {
      return wrap(value, byType.get(value.type), value.type);
    }
    return value;
  };
}
