"""feedparser's tables that the fast pass reads at every element, as data: importing feedparser
(which imports urllib.request, http.client, email...) costs a small job more than all the rest of
its run, and a feed the fast pass reads needs nothing else from it.

The data below was derived by ``derive()`` from feedparser 6.0.14; ``tables()`` uses it only
when that is the version installed (read from its source file, not imported), and derives the
tables from feedparser itself otherwise, so they cannot drift. tests/test_feedtables.py holds the
data equal to ``derive()``.
"""

from __future__ import annotations

import importlib.util
import re

__all__ = ["FEEDPARSER_VERSION", "installed_version", "derive", "tables"]

FEEDPARSER_VERSION = '6.0.14'

# _FeedParserMixin.namespaces, keys lower-cased (URI -> feedparser's prefix)
NAMESPACES = {
    '': '',
    'http://backend.userland.com/rss': '',
    'http://blogs.law.harvard.edu/tech/rss': '',
    'http://purl.org/rss/1.0/': '',
    'http://my.netscape.com/rdf/simple/0.9/': '',
    'http://example.com/newformat#': '',
    'http://example.com/necho': '',
    'http://purl.org/echo/': '',
    'uri/of/echo/namespace#': '',
    'http://purl.org/pie/': '',
    'http://purl.org/atom/ns#': '',
    'http://www.w3.org/2005/atom': '',
    'http://purl.org/rss/1.0/modules/rss091#': '',
    'http://webns.net/mvcb/': 'admin',
    'http://purl.org/rss/1.0/modules/aggregation/': 'ag',
    'http://purl.org/rss/1.0/modules/annotate/': 'annotate',
    'http://media.tangent.org/rss/1.0/': 'audio',
    'http://backend.userland.com/blogchannelmodule': 'blogChannel',
    'http://creativecommons.org/ns#license': 'cc',
    'http://web.resource.org/cc/': 'cc',
    'http://cyber.law.harvard.edu/rss/creativecommonsrssmodule.html': 'creativeCommons',
    'http://backend.userland.com/creativecommonsrssmodule': 'creativeCommons',
    'http://purl.org/rss/1.0/modules/company': 'co',
    'http://purl.org/rss/1.0/modules/content/': 'content',
    'http://my.theinfo.org/changed/1.0/rss/': 'cp',
    'http://purl.org/dc/elements/1.1/': 'dc',
    'http://purl.org/dc/terms/': 'dcterms',
    'http://purl.org/rss/1.0/modules/email/': 'email',
    'http://purl.org/rss/1.0/modules/event/': 'ev',
    'http://rssnamespace.org/feedburner/ext/1.0': 'feedburner',
    'http://freshmeat.net/rss/fm/': 'fm',
    'http://xmlns.com/foaf/0.1/': 'foaf',
    'http://www.w3.org/2003/01/geo/wgs84_pos#': 'geo',
    'http://www.georss.org/georss': 'georss',
    'http://www.opengis.net/gml': 'gml',
    'http://postneo.com/icbm/': 'icbm',
    'http://purl.org/rss/1.0/modules/image/': 'image',
    'http://www.itunes.com/dtds/podcast-1.0.dtd': 'itunes',
    'http://example.com/dtds/podcast-1.0.dtd': 'itunes',
    'http://purl.org/rss/1.0/modules/link/': 'l',
    'http://search.yahoo.com/mrss': 'media',
    'http://search.yahoo.com/mrss/': 'media',
    'http://madskills.com/public/xml/rss/module/pingback/': 'pingback',
    'http://prismstandard.org/namespaces/1.2/basic/': 'prism',
    'http://www.w3.org/1999/02/22-rdf-syntax-ns#': 'rdf',
    'http://www.w3.org/2000/01/rdf-schema#': 'rdfs',
    'http://purl.org/rss/1.0/modules/reference/': 'ref',
    'http://purl.org/rss/1.0/modules/richequiv/': 'reqv',
    'http://purl.org/rss/1.0/modules/search/': 'search',
    'http://purl.org/rss/1.0/modules/slash/': 'slash',
    'http://schemas.xmlsoap.org/soap/envelope/': 'soap',
    'http://purl.org/rss/1.0/modules/servicestatus/': 'ss',
    'http://hacks.benhammersley.com/rss/streaming/': 'str',
    'http://purl.org/rss/1.0/modules/subscription/': 'sub',
    'http://purl.org/rss/1.0/modules/syndication/': 'sy',
    'http://schemas.pocketsoap.com/rss/mydescmodule/': 'szf',
    'http://purl.org/rss/1.0/modules/taxonomy/': 'taxo',
    'http://purl.org/rss/1.0/modules/threading/': 'thr',
    'http://purl.org/rss/1.0/modules/textinput/': 'ti',
    'http://madskills.com/public/xml/rss/module/trackback/': 'trackback',
    'http://wellformedweb.org/commentapi/': 'wfw',
    'http://purl.org/rss/1.0/modules/wiki/': 'wiki',
    'http://www.w3.org/1999/xhtml': 'xhtml',
    'http://www.w3.org/1999/xlink': 'xlink',
    'http://www.w3.org/xml/1998/namespace': 'xml',
    'http://podlove.org/simple-chapters': 'psc',
}

# StrictFeedParser's lower-case _start_X/_end_X method names, without the leading "_"
METHODS = """
    end_abstract end_author end_body end_category end_channel end_content
    end_content_encoded end_contributor end_copyright end_created
    end_creativecommons_license end_dc_author end_dc_contributor end_dc_creator end_dc_date
    end_dc_description end_dc_language end_dc_publisher end_dc_rights end_dc_subject
    end_dc_title end_dcterms_created end_dcterms_issued end_dcterms_modified
    end_dcterms_valid end_description end_email end_entry end_expirationdate end_feed
    end_feedburner_browserfriendly end_fullitem end_generator end_geom end_georss_box
    end_georss_line end_georss_point end_georss_polygon end_georss_where end_gml_exterior
    end_gml_linearring end_gml_linestring end_gml_point end_gml_polygon end_gml_pos
    end_gml_poslist end_guid end_height end_homepage end_id end_image end_info end_issued
    end_item end_itunes_author end_itunes_block end_itunes_category end_itunes_email
    end_itunes_explicit end_itunes_keywords end_itunes_name end_itunes_owner
    end_itunes_subtitle end_itunes_summary end_keywords end_language end_lastbuilddate
    end_link end_managingeditor end_media_category end_media_credit end_media_description
    end_media_keywords end_media_license end_media_player end_media_rating
    end_media_restriction end_media_thumbnail end_media_title end_modified end_name
    end_newlocation end_psc_chapters end_pubdate end_published end_rights end_source
    end_subtitle end_summary end_tagline end_tags end_textinput end_title end_updated
    end_uri end_url end_webmaster end_where end_width end_xhtml_body start_abstract
    start_author start_body start_category start_cc_license start_channel start_cloud
    start_content start_content_encoded start_contributor start_copyright start_created
    start_creativecommons_license start_dc_author start_dc_contributor start_dc_creator
    start_dc_date start_dc_description start_dc_language start_dc_publisher start_dc_rights
    start_dc_subject start_dc_title start_dcterms_created start_dcterms_issued
    start_dcterms_modified start_dcterms_valid start_description start_email start_enclosure
    start_entry start_expirationdate start_feed start_feedburner_browserfriendly
    start_fullitem start_generator start_georss_box start_georss_line start_georss_point
    start_georss_polygon start_georss_where start_georssgeom start_gml_exterior
    start_gml_linearring start_gml_linestring start_gml_point start_gml_polygon
    start_gml_pos start_gml_poslist start_guid start_height start_homepage start_id
    start_image start_info start_issued start_item start_itunes_author start_itunes_category
    start_itunes_email start_itunes_image start_itunes_link start_itunes_name
    start_itunes_owner start_itunes_subtitle start_itunes_summary start_keywords
    start_language start_lastbuilddate start_link start_managingeditor start_media_category
    start_media_content start_media_credit start_media_description start_media_group
    start_media_license start_media_player start_media_rating start_media_restriction
    start_media_thumbnail start_media_title start_modified start_name start_newlocation
    start_psc_chapter start_psc_chapters start_pubdate start_published start_rights
    start_rss start_source start_subtitle start_summary start_tagline start_tags
    start_textinput start_title start_updated start_uri start_url start_webmaster
    start_where start_width start_xhtml_body
""".split()

HTML_TYPES = frozenset(['application/xhtml+xml', 'text/html'])

_VERSION = re.compile(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", re.M)


def installed_version() -> str | None:
    """feedparser's version, read from its __init__.py without importing it."""
    try:
        spec = importlib.util.find_spec("feedparser")
        origin = spec.origin if spec is not None else None
        text = ""
        if origin:
            with open(origin, encoding="utf-8") as f:
                text = f.read()
    except (ImportError, OSError, ValueError):
        return None
    m = _VERSION.search(text)
    return m.group(1) if m else None


def derive() -> tuple[str, dict[str, str], list[str], frozenset[str]]:
    """The tables, from the installed feedparser itself."""
    import feedparser
    from feedparser.api import StrictFeedParser
    from feedparser.mixin import _FeedParserMixin

    ns = {k.lower(): v for k, v in _FeedParserMixin.namespaces.items()}
    methods = sorted(n[1:] for n in dir(StrictFeedParser)
                     if n.startswith(("_start_", "_end_")) and n == n.lower())
    return feedparser.__version__, ns, methods, frozenset(_FeedParserMixin.html_types)


def tables() -> tuple[str, dict[str, str], list[str], frozenset[str]]:
    """(version, namespaces, methods, HTML types): the data above when it is the installed
    feedparser's, else derived from it."""
    version = installed_version()
    if version == FEEDPARSER_VERSION:
        return version, NAMESPACES, METHODS, HTML_TYPES
    return derive()

