// Vite bundles the stylesheets the console imports for their side effect; to the type checker they are modules with nothing in them.
declare module '*.css'
