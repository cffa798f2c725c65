"""Short names no festival or event may take: the words the organiser's pages use in their links.

Here, not in tournament/forms, because the services that make and rename festivals and events refuse them
(services.festivals), and the organiser's pages and the admin too.
"""

# Words the organiser's pages use right under manage/<festival>/, so no event may be called that.
RESERVED_EVENT_SLUGS = frozenset({"import", "export", "edit", "new-event", "staff"})
# … and right under manage/, so no festival may be called that.
RESERVED_FESTIVAL_SLUGS = frozenset({"new-festival"})
