/* dcc draws menus, sliders, graphs and file drops through React.lazy: the first of a kind to
 * render shows nothing (its Suspense fallback) until its code has resolved, then appears and
 * pushes the page down (a layout shift). The code is loaded with the page (app.py,
 * load_plotly_up_front), but a lazy component resolves only once something has rendered it.
 * One of each is rendered here, once the page's scripts have run (DOMContentLoaded: dcc's
 * script comes after the assets'; Dash has only just asked for the layout), into a detached root
 * that is unmounted at once: that starts their resolution, and never renders the components
 * themselves (they need Dash's context). By the time the first page renders, with
 * the app's first layout (layouts/_first_page.py) or through Dash Pages, they draw at their
 * size at once. */
document.addEventListener("DOMContentLoaded", function () {
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
});
