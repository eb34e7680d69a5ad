/**
 * The manual's stylesheet, served as a file at `/docs/manual.css` (the pages' Content-Security-Policy allows no
 * inline style). The console's look without its library: its system font stack, its teal accent and greys, light or
 * dark as the reader's system is, colours at WCAG AA contrast (4.5:1) on the surfaces they sit on.
 */
export const MANUAL_CSS = `
:root {
  color-scheme: light dark;
  --text: #212529;
  --muted: #495057;
  --page: #ffffff;
  --surface: #f1f3f5;
  --border: #dee2e6;
  --accent: #08735a;
  --bar: #087f5b;
  --bar-text: #ffffff;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  line-height: 1.55;
}
@media (prefers-color-scheme: dark) {
  :root {
    --text: #e9ecef;
    --muted: #c9c9c9;
    --page: #242424;
    --surface: #2e2e2e;
    --border: #424242;
    --accent: #38d9a9;
    --bar: #1f1f1f;
    --bar-text: #e9ecef;
  }
}
* { box-sizing: border-box; }
body { margin: 0; color: var(--text); background: var(--page); }
a { color: var(--accent); }
a:focus-visible, pre:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.bar { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; justify-content: space-between;
  padding: 0.75rem 1.25rem; background: var(--bar); color: var(--bar-text); }
.bar a { color: var(--bar-text); }
.bar a:focus-visible { outline-color: var(--bar-text); }
.bar .brand { font-weight: 700; font-size: 1.1rem; text-decoration: none; }
.bar nav { display: flex; gap: 1.25rem; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
h1, h2, h3, h4 { line-height: 1.25; margin: 1.6em 0 0.6em; }
h1 { font-size: 2rem; margin-top: 0.8em; }
h2 { font-size: 1.5rem; padding-bottom: 0.25em; border-bottom: 1px solid var(--border); }
h3 { font-size: 1.2rem; }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.9em;
  background: var(--surface); padding: 0.1em 0.3em; border-radius: 4px; overflow-wrap: anywhere; }
pre { background: var(--surface); padding: 0.75rem 1rem; border-radius: 4px; overflow-x: auto; }
pre code { padding: 0; background: none; overflow-wrap: normal; }
blockquote { margin: 1em 0; padding: 0.25em 1em; border-left: 4px solid var(--accent); color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 1em 0; font-size: 0.95em; }
th, td { border: 1px solid var(--border); padding: 0.4em 0.6em; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: var(--surface); }
img { max-width: 100%; height: auto; }
.outside { border-bottom: 1px dotted var(--muted); }
.pages { columns: 2 16rem; }
`;
