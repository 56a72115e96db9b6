"""`moonasm serve`: a contest people enter from a browser (spec §10, §11).

One process serves the pages and the JSON API (Starlette on uvicorn), keeps the contest in
one SQLite file (`db`), and runs the ladder (`ladder`): a thread that keeps worker processes
(or a Dask cluster) busy with games between the submitted bots, stores each batch in one
transaction, and tells the pages what changed (`live`, Server-Sent Events). Each area of the
site is one module of `views` serving its pages and its JSON, its routes beside them: `hills`,
`bots`, `games`, `auth`, `admin`, `playground`, `courses`, `health`; `app` collects their
routing tables and wraps them in the security layer (`guard`). The whole package is an
optional extra imported only by `serve`.
"""
