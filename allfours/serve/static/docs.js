// The interactive API docs (GET /docs): Swagger UI on the server's own OpenAPI description. A file of its own,
// not an inline script, so that the page's Content-Security-Policy allows scripts from the server only.
"use strict";
const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: root.dataset.openapi,
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null, // the online validator's badge would load from another host
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
