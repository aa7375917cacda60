"""The TypedDicts of every operation's `data` (generated into _operations.py), for annotations:

    from social_data.types import MicroblogAUserPostsDataPostsItem
"""
from ._operations import *  # noqa: F401,F403 - the generated types, re-exported
