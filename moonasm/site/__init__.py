"""`moonasm site`: the playground, the learning path and courses as a static folder that runs
in any browser on Pyodide (spec §13, docs/site.md).

`build.py` writes the folder (pages rendered from the server's own templates with the site's
`base.html`, the server's browser code copied as files, Pyodide, the wheels, the service
worker); `worker.py` is what the browser's Web Worker runs: the site's answers to the
editor's requests, from the very functions the server's views call.
"""
