"""The web face: a page that watches a run (plain HTML and JavaScript in ``static/``) and its event stream."""
