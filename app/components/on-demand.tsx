import { Component, lazy, memo, Suspense, useEffect, useId, useState, type ComponentType, type ReactNode } from 'react';

// Parts of a page whose script the browser downloads when they are first used, not with the page
// (the editor, the dialogs, the CSV import, the other tabs of the workspace). The server's bundle
// holds every module, so what it renders is the same as before; a part that cannot be downloaded
// leaves the page as it is without JavaScript.

const onServer = typeof document === 'undefined';

export type OnDemand<M> = {
  /** Starts the download (once; again after a failure) and resolves to the module. */
  load: () => Promise<M>;
  /** The module once it has arrived, else null. */
  readonly module: M | null;
};

export function onDemand<M>(importer: () => Promise<M>): OnDemand<M> {
  let promise: Promise<M> | null = null;
  let module: M | null = null;
  const part: OnDemand<M> = {
    load: () =>
      (promise ??= importer().then(
        (loaded) => (module = loaded),
        (error: unknown) => {
          promise = null;
          throw error;
        },
      )),
    get module() {
      return module;
    },
  };
  // The server takes its (bundled) modules at once, so its renders never wait for one.
  if (onServer) void part.load();
  return part;
}

/**
 * The part's module once the browser has it (`start`: load it now), else null; never on the server,
 * which renders the page as it is before the part arrives.
 */
export function useOnDemand<M>(part: OnDemand<M>, start = false): M | null {
  const [module, setModule] = useState(part.module);
  useEffect(() => {
    if (module || !start) return;
    let live = true;
    part.load().then(
      (loaded) => live && setModule(loaded),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [part, module, start]);
  return onServer ? null : (module ?? part.module);
}

/**
 * Loads the part, then calls `then`; when the download fails, `otherwise` (the way the page works
 * without JavaScript: a link followed, a form posted by the browser).
 */
export function whenLoaded<M>(part: OnDemand<M>, then: (module: M) => void, otherwise: () => void): void {
  part.load().then(then, otherwise);
}

/**
 * Keeps the server's HTML of a part while its script is on the way, and for good when the script
 * cannot be loaded: React throws that HTML away when a part fails, so it is read before hydration and
 * put back as plain markup, whose links and forms work as they do without JavaScript. A part that
 * first appeared in the browser (no HTML of the server) reloads the page instead, which the server renders.
 */
class KeepServerHtml extends Component<{ id: string; children: ReactNode }, { failed: boolean }> {
  html = onServer ? null : (document.querySelector(`[data-part="${this.props.id}"]`)?.innerHTML ?? null);
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch() {
    if (this.html === null) window.location.reload();
  }

  render() {
    if (!this.state.failed)
      return (
        <div data-part={this.props.id} className="contents">
          {this.props.children}
        </div>
      );
    return this.html === null ? null : (
      <div data-part={this.props.id} className="contents" dangerouslySetInnerHTML={{ __html: this.html }} />
    );
  }
}

/**
 * A component of a part that the server renders into the page (so the page works without
 * JavaScript) and the browser loads when it is on screen: during hydration React keeps the server's
 * HTML until the script arrives, and a component that appears later waits for it.
 */
export function serverRendered<M, P extends object>(part: OnDemand<M>, pick: (module: M) => ComponentType<P>): ComponentType<P> {
  const Lazy = lazy(async () => ({ default: pick(await part.load()) }));
  function Part(props: P) {
    const id = useId();
    const Loaded = (onServer && part.module ? pick(part.module) : Lazy) as ComponentType<P>;
    return (
      <KeepServerHtml id={id.replaceAll(':', '')}>
        <Suspense fallback={null}>
          <Loaded {...props} />
        </Suspense>
      </KeepServerHtml>
    );
  }
  return memo(Part) as unknown as ComponentType<P>;
}

/**
 * Submits the button's form as the browser does without JavaScript (a document navigation, with the
 * button's own action, method and name=value): the way on when what the button opens cannot be loaded.
 */
export function submitWithoutScript(button: HTMLButtonElement): void {
  const form = button.form;
  if (!form) return;
  const attributes = ['action', 'method', 'enctype', 'novalidate'] as const;
  const kept = attributes.map((name) => form.getAttribute(name));
  const carried = button.name
    ? Object.assign(document.createElement('input'), { type: 'hidden', name: button.name, value: button.value })
    : null;
  if (carried) form.append(carried);
  form.action = button.formAction;
  form.method = button.formMethod || form.method;
  form.enctype = button.formEnctype || form.enctype;
  form.noValidate = form.noValidate || button.formNoValidate;
  form.submit();
  // The browser has taken the form's data and target: the page's form is left as it was.
  carried?.remove();
  attributes.forEach((name, i) => (kept[i] === null ? form.removeAttribute(name) : form.setAttribute(name, kept[i]!)));
}
