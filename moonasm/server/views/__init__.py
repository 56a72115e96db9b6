"""The site, one module a resource, each serving its pages and its JSON with its routing table
beside them (after Datasette's `views/`): `hills`, `bots`, `games`, `auth`, `admin`,
`playground`, `courses`, `health`. No area imports another (an import-linter `independence`
contract); what more than one shows is in `shared`, what every area stands on in
`moonasm.server.site`. `moonasm.server.app` gathers their `ROUTES`.
"""
