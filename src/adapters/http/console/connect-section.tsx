import type { ConnectInfo, Snippet } from './connect-snippets.js';
import { oauthSnippets, stdioSnippets, tokenSnippets } from './connect-snippets.js';

/** The placeholder where a token goes until one was just made (its secret is shown once). */
export const TOKEN_PLACEHOLDER = 'YOUR_TOKEN';

function Snippets(props: { route: string; snippets: readonly Snippet[] }) {
  return (
    <>
      {props.snippets.map((snippet) => {
        const id = `connect-${props.route}-${snippet.id}`;
        return (
          <details class="connect">
            <summary>{snippet.host}</summary>
            <p class="small">{snippet.where}</p>
            <pre class="snippet">
              <code id={id}>{snippet.text}</code>
            </pre>
            <button type="button" data-copy={id} hidden>
              Copy
            </button>
          </details>
        );
      })}
    </>
  );
}

/**
 * How this person connects an agent host: the address, and per host what to paste — with a
 * token (the one just made, else a placeholder), through OAuth where the server signs people
 * in, or over stdio where this process speaks MCP to the host that starts it.
 */
export function ConnectSection(props: { connect: ConnectInfo; email: string; token?: string | undefined }) {
  const { connect, email } = props;
  const url = connect.mcpUrl;
  return (
    <section aria-labelledby="connect-title" id="connect">
      <h2 id="connect-title">Connect an agent host</h2>
      {url ? (
        <>
          <p>
            The MCP address (Streamable HTTP): <code id="mcp-url">{url}</code>
          </p>
          {connect.oauth ? (
            <>
              <h3>Sign in from the host (OAuth)</h3>
              <p class="small">
                Nothing to paste but the address: the host opens a page where you sign in and choose what the
                agent may do. The connection then appears under “Apps connected through OAuth”.
              </p>
              <Snippets route="oauth" snippets={oauthSnippets(url)} />
            </>
          ) : (
            ''
          )}
          <h3>With a token</h3>
          <p class="small">
            {props.token
              ? 'The token just made is filled in below; this page shows it only now.'
              : `Make a token below, then put it where ${TOKEN_PLACEHOLDER} stands.`}{' '}
            Keep it out of repositories and chats.
          </p>
          <Snippets route="token" snippets={tokenSnippets(url, props.token ?? TOKEN_PLACEHOLDER)} />
        </>
      ) : (
        <>
          <p class="small">
            This Holdfast speaks MCP over stdio: the host starts it, and it acts for you ({email}). Build it
            once with <code>npm run build</code>.
          </p>
          <Snippets route="stdio" snippets={stdioSnippets(connect.stdioCommand, email)} />
        </>
      )}
    </section>
  );
}
