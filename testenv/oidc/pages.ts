// The provider's few pages: sign-in, sign-out confirmation, signed out, and errors. Plain HTML
// forms with labelled fields, so that a person, Playwright (getByLabel/getByRole) and the
// HTTP helper in flow.ts all use them the same way. No scripts, no external resources.

export function escapeHtml(s: unknown): string {
  return String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:48px 16px;color:#1f2328}
main{max-width:340px;margin:0 auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:24px}
h1{font-size:1.3rem;margin:0 0 4px}p.sub{color:#57606a;margin:0 0 20px;font-size:.9rem}
label{display:block;font-size:.9rem;font-weight:600;margin:12px 0 4px}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:8px;font-size:1rem;border:1px solid #d0d7de;border-radius:6px}
button{margin-top:20px;width:100%;padding:9px;font-size:1rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer}
button.secondary{background:#eaeef2;color:#1f2328;margin-top:8px}
.error{background:#ffebe9;border:1px solid #ff8182;color:#82071e;border-radius:6px;padding:8px 10px;margin-bottom:8px;font-size:.9rem}
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

export interface LoginPageInput {
  action: string;
  issuer: string;
  clientName: string;
  username?: string;
  error?: string;
}

export function loginPage({ action, issuer, clientName, username, error }: LoginPageInput): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p class="sub">to ${escapeHtml(clientName)} with the Palisade test identity provider (${escapeHtml(issuer)})</p>
${error ? `<div class="error" role="alert" id="login-error">${escapeHtml(error)}</div>` : ''}
<form method="post" action="${escapeHtml(action)}" autocomplete="off">
<label for="username">Username</label>
<input type="text" id="username" name="username" required autofocus value="${escapeHtml(username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** oidc-provider hands us its form (id op.logoutForm, holding the xsrf token) to submit */
export function logoutPage(form: string, host: string): string {
  return page(
    'Sign out',
    `<h1>Sign out</h1>
<p class="sub">End your session at ${escapeHtml(host)}?</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
<button type="submit" form="op.logoutForm" class="secondary">Stay signed in</button>`,
  );
}

export function loggedOutPage(clientName?: string): string {
  return page(
    'Signed out',
    `<h1>Signed out</h1>
<p class="sub">You have signed out${clientName ? ` of ${escapeHtml(clientName)}` : ''}.</p>`,
  );
}

export function errorPage(fields: Record<string, unknown>): string {
  const rows = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<p><strong>${escapeHtml(k)}</strong>: ${escapeHtml(v)}</p>`)
    .join('\n');
  return page('Error', `<h1>Something went wrong</h1>\n<div class="error" role="alert">${rows}</div>`);
}
