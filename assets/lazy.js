/* dcc draws menus, sliders, graphs and file drops through React.lazy: the first of a kind to
 * render shows nothing (its Suspense fallback) until its code has resolved, then appears and
 * pushes the page down (a layout shift). The code is loaded with the page (app.py,
 * load_plotly_up_front), but a lazy component resolves only once something has rendered it.
 * One of each is rendered here, once the page's scripts have run (DOMContentLoaded: dcc's
 * script comes after the assets'; Dash has only just asked for the layout), into a detached root
 * that is unmounted at once: that starts their resolution, and never renders the components
 * themselves (they need Dash's context). By the time the first page renders, with
 * the app's first layout (layouts/_first_page.py) or through Dash Pages, they draw at their
 * size at once.
 *
 * Internal: none. Clientside callbacks: none. */
(function () {
  "use strict";

  function resolveLazyComponents() {
    const dcc = window.dash_core_components;
    const React = window.React, ReactDOM = window.ReactDOM;
    if (!dcc || !React || !ReactDOM || !ReactDOM.createRoot || !ReactDOM.flushSync) {
      return;
    }
    const noop = function () {};
    const kinds = [
      [dcc.Dropdown, {options: []}],
      [dcc.RangeSlider, {min: 0, max: 1}],
      [dcc.Slider, {min: 0, max: 1}],
      [dcc.Graph, {}],
      [dcc.Upload, {}]
    ].filter(function (k) { return k[0]; });
    const root = ReactDOM.createRoot(document.createElement("div"));
    try {
      ReactDOM.flushSync(function () {
        root.render(React.createElement(React.Fragment, null, kinds.map(function (k, n) {
          return React.createElement(k[0], Object.assign({key: n, id: "evalmaps-lazy-" + n,
                                                          setProps: noop}, k[1]));
        })));
      });
    } finally {
      root.unmount();
    }
  }

  /* AG Grid's bundle comes with the pages that show a grid (Trends, Data). On the others its
   * script tag is inert (type text/x-evalmaps-on-demand; layouts/_first_page.py, grid_on_demand),
   * and a grid rendered later (after a link to Data) loads it then. Dash finds a component as
   * window[namespace][type], so window.dash_ag_grid always holds AgGrid below: until the bundle
   * has run, an empty box of the grid's size (its id, class and style); then the real grid, with
   * every prop. The bundle's own `window.dash_ag_grid = ...` goes through the setter, before this
   * script (a page with a grid) or after it (loaded here). The stand-in carries the real grid's
   * statics (which props Dash persists, and `dashRenderType`, which it must have from the first
   * render: Dash passes that prop only to components that declare it). The bundle's lazy chunk
   * writes the module back (`window.dash_ag_grid = window.dash_ag_grid || {}`): that is ours
   * already, and taking it for the real one would make the stand-in render itself. */
  function gridOnDemand() {
    const React = window.React;
    if (!React) {
      return;
    }
    let real = null;
    let loading = null;

    function load() {
      if (!loading) {
        loading = new Promise(function (resolve, reject) {
          const inert = document.querySelector(
            'script[type="text/x-evalmaps-on-demand"][data-namespace="dash_ag_grid"]');
          if (!inert) {
            reject(new Error("evalmaps: AG Grid's script is not on this page."));
            return;
          }
          const script = document.createElement("script");
          script.src = inert.src;
          script.onload = function () {
            if (real) {
              resolve();
            } else {
              reject(new Error("evalmaps: AG Grid's script ran but defined no grid."));
            }
          };
          script.onerror = function () {
            loading = null;  // the next grid to render tries again
            reject(new Error("evalmaps: AG Grid's script did not load; reload the page."));
          };
          document.head.appendChild(script);
        });
      }
      return loading;
    }

    function AgGrid(props) {
      const setLoaded = React.useState(real !== null)[1];
      React.useEffect(function () {
        if (real) {
          return undefined;
        }
        let mounted = true;
        load().then(function () {
          if (mounted) {
            setLoaded(true);
          }
        }, function (error) {
          console.error(error);
        });
        return function () {
          mounted = false;
        };
      }, []);
      if (real) {
        return React.createElement(real.AgGrid, props);
      }
      return React.createElement("div", {id: props.id, className: props.className,
                                         style: props.style, "aria-busy": "true"});
    }
    AgGrid.dashRenderType = true;

    let module = {AgGrid: AgGrid};
    function adopt(value) {
      if (!value || value === module || value.AgGrid === AgGrid) {
        return;  // the bundle's chunks write back what they read (`d = d || {}`)
      }
      real = value;
      Object.keys(value.AgGrid).forEach(function (key) {
        AgGrid[key] = value.AgGrid[key];
      });
      module = Object.assign({}, value, {AgGrid: AgGrid});
    }
    const before = window.dash_ag_grid;
    Object.defineProperty(window, "dash_ag_grid", {
      configurable: true,
      enumerable: true,
      get: function () { return module; },
      set: adopt
    });
    if (before) {
      adopt(before);
    }
  }

  document.addEventListener("DOMContentLoaded", resolveLazyComponents);
  gridOnDemand();
})();
