// The widget's styles, applied inside its shadow root only: a small, neutral chat that fits in
// whatever box the host page gives the element. `--agui-accent` lets a page set the accent colour.
export const WIDGET_CSS = `
:host { display: block; font: 14px/1.45 system-ui, sans-serif; color: #0f172a; --agui-accent: #4338ca; }
* { box-sizing: border-box; }
.chat { display: flex; flex-direction: column; height: 100%; min-height: 320px; border: 1px solid #cbd5e1; border-radius: 10px; background: #fff; overflow: hidden; }
.log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
.message { max-width: 90%; padding: 8px 10px; border-radius: 10px; background: #f1f5f9; }
.message.user { align-self: flex-end; background: var(--agui-accent); color: #fff; }
.message.reasoning { font-style: italic; color: #475569; background: transparent; }
.text { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.tool { margin-top: 6px; padding: 6px 8px; border: 1px solid #cbd5e1; border-radius: 8px; background: #fff; color: #0f172a; }
.tool header { display: flex; justify-content: space-between; gap: 8px; font-weight: 600; }
.tool-name { font-family: ui-monospace, monospace; }
.tool-status { font-weight: 400; font-size: 12px; color: #475569; }
.tool.failed .tool-status, .tool.denied .tool-status { color: #b91c1c; }
h4 { margin: 6px 0 2px; font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: #64748b; }
pre { margin: 0; padding: 6px; max-height: 160px; overflow: auto; background: #f8fafc; border-radius: 6px; font: 12px/1.4 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.media { display: block; max-width: 100%; max-height: 200px; margin: 4px 0; border-radius: 6px; }
.note { margin: 2px 0; font-size: 12px; color: #475569; overflow-wrap: anywhere; }
.cards:empty { display: none; }
.cards { padding: 0 12px; }
.card { margin: 8px 0; padding: 10px; border: 2px solid #fcd34d; border-radius: 10px; background: #fffbeb; }
.card h3 { margin: 0 0 4px; font-size: 14px; }
.card p { margin: 0 0 6px; }
.actions { display: flex; gap: 8px; margin-top: 8px; }
button { font: inherit; padding: 6px 14px; border-radius: 8px; border: 1px solid transparent; cursor: pointer; }
button:disabled { opacity: .5; cursor: default; }
button:focus-visible, textarea:focus-visible { outline: 2px solid var(--agui-accent); outline-offset: 2px; }
.approve, .composer button { background: var(--agui-accent); color: #fff; }
.deny { background: #fff; border-color: #cbd5e1; color: #0f172a; }
.status { margin: 0; padding: 0 12px; min-height: 1.4em; font-size: 12px; color: #475569; }
.composer { display: flex; gap: 8px; padding: 12px; border-top: 1px solid #e2e8f0; }
textarea { flex: 1; resize: none; font: inherit; padding: 6px 8px; border: 1px solid #cbd5e1; border-radius: 8px; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
