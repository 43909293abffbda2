/** A self-contained page (no external scripts) that lists the operations of /openapi.json. */
export function docsPage(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>API</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .3em}li{margin:.4em 0}pre{background:#f7f7f7;padding:.5em;overflow:auto}</style></head>
<body><h1>Voice and agent communication service</h1><p>Machine-readable description: <a href="/openapi.json">/openapi.json</a></p><ul id="ops"></ul>
<script>fetch('/openapi.json').then(r=>r.json()).then(d=>{const ul=document.getElementById('ops');for(const [p,ops] of Object.entries(d.paths))for(const [m,o] of Object.entries(ops)){const li=document.createElement('li');li.innerHTML='<code>'+m.toUpperCase()+' '+p+'</code> '+o.summary+(o['x-required-scope']?' <small>(scope '+o['x-required-scope']+')</small>':'')+(o.requestBody?'<details><summary>body</summary><pre>'+JSON.stringify(o.requestBody.content['application/json'].schema,null,2)+'</pre></details>':'');ul.appendChild(li);}});</script>
</body></html>`;
}
