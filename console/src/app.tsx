/**
 * The console's frame: sign-in by pasting an organization token, the navigation, and the page the
 * address names. A page the token's scopes do not open is shown disabled, with the reason.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useLocation } from 'wouter-preact';
import { whenUnauthorized } from './client/api';
import { allows, endSession, keepSession, sessionOf, storedSession, type Session } from './client/session';
import { ErrorNote, Field, Form, Loading } from './components/ui';
import { PAGES, type PageEntry } from './pages/registry';

export function App() {
  const [session, setSession] = useState<Session | null>(storedSession);
  useEffect(() => {
    whenUnauthorized(() => {
      endSession();
      setSession(null);
    });
  }, []);
  if (!session) return <SignIn onSignIn={setSession} />;
  const signOut = () => {
    endSession();
    setSession(null);
  };
  return (
    <Router base="/console">
      <div class="shell">
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <Navigation session={session} onSignOut={signOut} />
        <main id="main" tabIndex={-1}>
          <Switch>
            {PAGES.map((page) => (
              <Route key={page.path} path={page.path} nest>
                <Gate page={page} session={session} />
              </Route>
            ))}
            <Route>
              <Redirect to={firstOpen(session)} replace />
            </Route>
          </Switch>
        </main>
      </div>
    </Router>
  );
}

const firstOpen = (session: Session) => (PAGES.find((p) => allows(session, p.scopes)) ?? PAGES[0]!).path;

function Navigation(props: { session: Session; onSignOut: () => void }) {
  const [location] = useLocation();
  return (
    <nav class="nav" aria-label="Console">
      <p class="brand">Operator console</p>
      <ul>
        {PAGES.map((page) => {
          const open = allows(props.session, page.scopes);
          const current = location === page.path || location.startsWith(`${page.path}/`);
          return (
            <li key={page.path}>
              <Link
                href={page.path}
                aria-current={current ? 'page' : undefined}
                class={open ? undefined : 'disabled'}
                title={open ? undefined : `Needs the scope ${page.scopes.join(' or ')}`}
              >
                {page.title}
              </Link>
            </li>
          );
        })}
      </ul>
      <button type="button" class="sign-out" onClick={props.onSignOut}>
        Sign out
      </button>
    </nav>
  );
}

/** The page, or why the token cannot open it. */
function Gate(props: { page: PageEntry; session: Session }) {
  const { page, session } = props;
  useEffect(() => {
    document.title = `${page.title} · Operator console`;
  }, [page]);
  if (!allows(session, page.scopes))
    return (
      <section class="page" aria-labelledby="page-title">
        <h1 id="page-title">{page.title}</h1>
        <p class="disabled-reason" role="note">
          This page is disabled: your token does not have the scope {page.scopes.map((s) => `“${s}”`).join(' or ')}. Ask
          your organization's administrator for a token that has it.
        </p>
      </section>
    );
  return <Lazy load={page.load} />;
}

const loaded = new Map<PageEntry['load'], ComponentType>();

function Lazy(props: { load: PageEntry['load'] }) {
  const [component, setComponent] = useState<ComponentType | undefined>(() => loaded.get(props.load));
  const [error, setError] = useState<Error | undefined>(undefined);
  useEffect(() => {
    if (loaded.has(props.load)) return setComponent(() => loaded.get(props.load));
    let current = true;
    props.load().then(
      (module) => {
        loaded.set(props.load, module.default);
        if (current) setComponent(() => module.default);
      },
      (e: unknown) => current && setError(e instanceof Error ? e : new Error(String(e))),
    );
    return () => {
      current = false;
    };
  }, [props.load]);
  if (error) return <ErrorNote error={error} />;
  if (!component) return <Loading what="the page" />;
  const Component = component;
  return <Component />;
}

function SignIn(props: { onSignIn: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<Error | undefined>(undefined);
  const submit = () => {
    const session = sessionOf(token);
    if (!session) return setError(new Error('That is not an organization token (a JWT issued by the admin API).'));
    if (session.expiresAt !== null && session.expiresAt <= Date.now())
      return setError(new Error('That token has expired. Ask for a new one.'));
    keepSession(session);
    props.onSignIn(session);
  };
  return (
    <main id="main" class="sign-in">
      <h1>Operator console</h1>
      <p>Sign in with an organization token. It is kept in this tab only, and sent with each call to the API.</p>
      <Form label="Sign in" onSubmit={submit}>
        <Field label="Organization token">
          <textarea
            name="token"
            rows={4}
            required
            autoComplete="off"
            spellcheck={false}
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
          />
        </Field>
        <ErrorNote error={error} />
        <button type="submit">Sign in</button>
      </Form>
    </main>
  );
}
