"""The curated lexicon: per category, words that name it and concrete supports that serve it.

Each entry is a regular-expression fragment matched case-insensitively at word boundaries.
`mentions` name the group or condition; `supports` name assistive technologies, accommodations,
design features or services, keyed by a canonical name (depth counts distinct keys); `markers`
are the supports that name the category on their own ("braille" needs no "blind" beside it): an
answer covers a category when it addresses that group's needs, whether it names the group or only a
support that serves it. `SHARED_MARKERS` are supports that serve more than one category (easy-read
serves people with intellectual and with learning disabilities): in a sentence that names no group they
name all of their categories; beside a named group they only deepen the categories named.
False friends are idioms that use a disability word for something else; they are blanked before
matching. Written for AccessBench; extend it with general terms, never with phrases of one response.
"""

from __future__ import annotations

from typing import TypedDict


class CategoryTerms(TypedDict):
    mentions: tuple[str, ...]
    supports: dict[str, tuple[str, ...]]
    markers: tuple[str, ...]


FALSE_FRIENDS: tuple[str, ...] = (
    r"blind ?spots?", r"turn(?:s|ed|ing)? a blind eye", r"blind(?:ly)? (?:faith|trust|obedience|alley)",
    r"double[- ]blind", r"blind (?:review|test(?:ing)?|audition|date)s?", r"blindsid\w*",
    r"deaf to\b", r"fall(?:s|en|ing)? on deaf ears", r"turn(?:s|ed|ing)? a deaf ear",
    r"crippl\w*", r"lame (?:excuse|duck)s?", r"paraly[sz](?:ed|ing|is) (?:by|with) \w+", r"analysis paralysis",
    r"mental (?:note|model|map|picture|image|arithmetic|math|maths|gymnastics)s?",
    r"(?:economic|great|trade) depression", r"depress(?:es|ed|ing)? (?:the )?(?:button|lever|pedal|key)s?",
    r"depressed (?:wages|prices|demand|markets?|economy|economies|areas?|regions?)",
    r"anxious to\b", r"(?:asset|property|drug|border) seizures?", r"seizures? of (?:goods|assets|property|funds)",
    r"stroke of (?:luck|genius)", r"brush ?strokes?", r"key ?strokes?",
    r"free speech", r"hate speech", r"speech (?:act|bubble)s?",
    r"colou?r[- ]blind (?:casting|hiring|recruitment)", r"tone[- ]deaf",
)

EASY_READ = (r"easy[- ]read\w*", r"easy[- ]to[- ]read (?:versions?|formats?|guides?|leaflets?|documents?)")
PLAIN_LANGUAGE = (r"plain[- ](?:language|english|words)(?: summar(?:y|ies)| versions?)?",
                  r"simple (?:language|words|wording|english)",
                  r"jargon[- ]free", r"(?:short|plain),? (?:plain |short )?sentences", r"everyday words")
STEP_BY_STEP = (r"step[- ]by[- ]step", r"(?:simple|short|clear),? (?:simple )?(?:instructions|steps)",
                r"(?:small|smaller|manageable) steps", r"one (?:instruction|step|question) at a time")
WRITTEN_CONTACT = (r"(?:live|web) chat", r"by (?:text(?: messages?)?|sms|e-?mail|chat)")
# A way to reach someone by text where voice is the default serves people who cannot hear a call and people who
# cannot speak on one; text sent to someone (alerts, letters by e-mail) serves the first only (WRITTEN_CONTACT).
TEXT_INSTEAD_OF_VOICE = (r"(?:live|web|text) chat", r"(?:by|via) chat", r"offer(?:s|ing)? chat",
                         r"instead of (?:phone calls?|calling)",
                         r"(?:typed|text|written|chat)(?:[- ]based)? alternatives? to (?:voice|phone)\w*",
                         r"alternatives? to phone calls?",
                         r"(?:booked|book|contact\w*|reach\w*) (?:\w+ ){0,2}online,? "
                         r"(?:not only|as well as|instead of) (?:by )?(?:phone|telephone)",
                         r"(?:intercoms?|help ?points?|phones?|entry ?phones?|lines?) with a text option")
# A room to withdraw to serves people overwhelmed by the senses and people in distress alike (NAS; Mind).
QUIET_ROOM = (r"quiet(?:er)? (?:rooms?|spaces?|areas?|zones?|corners?)", r"quiet(?:er)?,? (?:\w+ )?rooms?",
              r"calm(?:ing)? (?:rooms?|spaces?|areas?|corners?)",
              r"(?:chill[- ]out|calm[- ]down|breakout|retreat|low[- ]stimulus|low[- ]sensory|low[- ]arousal) "
              r"(?:zones?|rooms?|spaces?|areas?|study rooms?)",
              r"smaller rooms? with fewer (?:candidates|people)", r"somewhere (?:calm|quiet)")
# Hours of work that bend around fluctuating symptoms, fatigue or treatment (MS Society; EEOC on psychiatric
# disabilities): they serve neurological and mental health conditions alike.
FLEXIBLE_HOURS = (r"flexible (?:hours|schedules?|working|work|deadlines|timetables?|start(?: times?)?|arrangements)",
                  r"(?:later|staggered|varied) start(?: times?)?", r"choose (?:their|your|the) (?:own )?hours",
                  r"core hours(?: only)?", r"work(?:ing)? from home on (?:bad|difficult) days")

LEXICON: dict[str, CategoryTerms] = {
    "Vision": {
        "mentions": (r"blind(?:ness)?", r"deaf[- ]?blind\w*", r"(?:visually|vision|sight)[- ]impair\w*",
                     r"low[- ]vision", r"partial(?:ly)?[- ]sight\w*", r"(?:sight|vision) loss",
                     r"visual(?:ly)? (?:impair\w*|disabilit\w*)", r"vision disabilit\w*", r"colou?r[- ]?blind\w*",
                     r"colou?r vision deficienc\w*", r"nystagmus",
                     r"(?:people|users|those|visitors|readers) who (?:cannot|can't) see",
                     r"(?:difficulty|difficulties|trouble) (?:with )?seeing"),
        "supports": {
            "screen_reader": (r"screen[- ]?readers?", r"screen[- ]reading", r"JAWS", r"NVDA", r"VoiceOver", r"TalkBack",
                              r"ZoomText"),
            "braille": (r"braille",),
            "magnification": (r"(?:screen |video )?magnif\w*", r"enlarg\w* text", r"reflow\w*",
                              r"zoom(?:ed|ing)? (?:in )?(?:to|up to|at) \d+ ?%", r"\d+ ?% zoom"),
            "large_print": (r"large[- ]print", r"(?:larger|large|bigger) (?:text|fonts?|print|type)",
                            r"(?:at least|minimum(?: of)?) \d+ ?(?:pt|point)\b(?: (?:type|text|font|print))?",
                            r"\d+ ?pt (?:type|text|font|print|lettering)"),
            "contrast": (r"(?:high|strong|sufficient|good)[- ]contrast\w*", r"colou?r[- ]contrast\w*",
                         r"contrast ratios?", r"contrasting (?:colou?rs?|backgrounds?|edges?|strips?|nosings?|bands?)",
                         r"colou?r[- ]contrast(?:ing|ed)", r"high[- ]contrast themes?"),
            "not_colour_alone": (r"(?:not|never|n't) (?:\w+ ){0,2}colou?r alone", r"colou?r[- ]blind[- ]friendly",
                                 r"(?:patterns|labels|symbols|shapes) as well as colou?r",
                                 r"(?:not|never) (?:only|just|solely) (?:by|in|through) (?:colou?r|red|green)"),
            "tactile": (r"tactile (?:paving|maps?|signs?|signage|markings?|flooring|indicators?|guides?|models?|"
                        r"graphics?|surfaces?|exhibits?|objects?|strips?|buttons?|voting devices?|devices?)",
                        r"raised (?:lettering|letters|print|markings?|dots?|symbols|digits|numbers|buttons)",
                        r"handling (?:collections?|objects|sessions?)",
                        r"3D[- ]printed (?:\w+ )?(?:cop(?:y|ies)|models?|replicas?)",
                        r"cards? (?:\w+ ){0,2}with a notch", r"notched cards?"),
            "audio_description": (r"audio[- ]descri\w*", r"described (?:video|diagrams?|images?|graphics?)",
                                  r"verbal descriptions?", r"describ\w* (?:\w+ ){0,3}(?:aloud|out loud)",
                                  r"describ\w* (?:the )?(?:surroundings|steps and doors|the layout|the route)"),
            "alt_text": (r"alt(?:ernative)?[- ]text", r"text alternatives?", r"image descriptions?",
                         r"long descriptions?"),
            "guide_dog": (r"guide dogs?", r"white canes?", r"assistance dogs?", r"sighted guid\w*",
                          r"offer (?:your|an|them your) (?:arm|elbow)",
                          r"guid\w* (?:people|someone|a person|visitors|passengers) who (?:cannot|can't) see"),
            "audible_signals": (r"audible (?:signals?|crossings?|announcements?|cues?|alerts?)",
                                r"talking (?:signs?|atms?|lifts?|elevators?|cash machines?)",
                                r"(?:spoken|audio|audible|voice)(?: and (?:visual|visible|text|written))? "
                                r"announcements?", r"audio guides?", r"(?:speech|voice|audio|spoken) output",
                                r"audio (?:ballots?|voting)", r"headphone (?:jacks?|sockets?)",
                                r"announced (?:aloud|audibly|over the PA)", r"(?:next[- ])?stop announcements?",
                                r"announcements? (?:\w+ ){0,2}spoken", r"read (?:\w+ ){0,2}ballots? (?:aloud|out)",
                                r"touch tours?", r"tactile (?:keypads?|voting templates?|"
                                r"templates?|guidance paths?)"),
        },
        "markers": ("screen_reader", "braille", "tactile", "audio_description", "guide_dog", "alt_text",
                    "magnification", "large_print", "contrast", "not_colour_alone", "audible_signals"),
    },
    "Hearing": {
        "mentions": (r"deaf(?:ness)?", r"deafened", r"hard[- ]of[- ]hearing", r"hearing[- ]impaired",
                     r"hearing (?:loss|impairments?|disabilit\w*|difficult\w*)", r"deaf[- ]?blind\w*",
                     r"(?:people|users|those|guests|visitors) who (?:cannot|can't) hear",
                     r"(?:difficulty|difficulties|trouble) (?:with )?hearing"),
        "supports": {
            "captions": (r"caption\w*", r"subtitl\w*", r"\bSDH\b"),
            # "sign language interpreters" is one support: interpreters count on their own only without it
            "sign_language": (r"sign[- ]language\w*(?: interpret\w*)?", r"\bBSL\b", r"\bASL\b", r"signers?",
                              r"signed (?:versions?|performances?|tours?|interpretation)"),
            "interpreters": (r"(?<!language )(?<!BSL )(?<!ASL )interpreters?",),
            "hearing_loop": (r"(?:hearing|induction|audio) loops?", r"assistive listening\w*", r"t-?coils?",
                             r"(?:FM|soundfield|sound[- ]field|loop) systems?", r"radio aids?"),
            "visual_alerts": (r"visual (?:alarms?|alerts?|signals?|notifications?|displays?|information boards?)",
                              r"flashing (?:lights?|alarms?|beacons?)",
                              r"(?:text|visual) announcements?",
                              r"flash(?:es|ing)? (?:a )?lights? (?:as well as|instead of|alongside)",
                              r"strobe (?:alarms?|lights?|beacons?)", r"flashing (?:doorbells?|fire alarms?)",
                              r"(?:visual|flashing) doorbells?", r"flash as well as sound",
                              r"video entry ?phones?", r"on (?:a |the )?(?:display|information|visual) screens?",
                              r"(?:display|information) screens? (?:that|which|to) (?:show|shows|display)",
                              r"(?:flags?|hand signals?|lights?) (?:as well as|instead of|alongside) (?:the |a )?"
                              r"(?:whistles?|bells?|horns?|sound)",
                              r"announcements? (?:\w+ ){0,4}on (?:a |the )?(?:screens?|displays?)"),
            "vibrating_alerts": (r"vibrat\w* (?:alerts?|alarms?|pagers?|pads?|pillow \w+|alarm kits?|watches)",
                                 r"pillow (?:pads?|shakers?)",
                                 r"(?:alarms?|alerts?) (?:\w+ ){0,2}with a vibrating \w+"),
            "transcription": (r"transcri(?:pts?|ption|bed)", r"(?:real[- ]time|live) (?:captioning|text)",
                              r"speech[- ]to[- ]text", r"\bCART\b"),
            "text_relay": (r"(?:text|video) relay", r"relay services?", r"textphones?", r"text[- ]based interpreting",
                           r"(?:text|email|sms)(?:[- ]based)? (?:contact|channels?)",
                           r"by (?:text(?: messages?)?|sms|e-?mail)", r"text alerts?"),
            "text_instead_of_voice": TEXT_INSTEAD_OF_VOICE,
            "lip_reading": (r"lip[- ]?read\w*", r"clear (?:face )?masks?",
                            r"face (?:the|your) (?:person|listener|audience|customer|patient)",
                            r"(?:don't|do not|never) cover your mouth", r"attention with a wave",
                            r"repeat (?:\w+ ){0,2}questions into the (?:microphone|mic)"),
            "hearing_aids": (r"hearing aids?", r"cochlear implants?"),
            "written_notes": (r"pen and paper", r"notepads?", r"writ\w* (?:it )?down"),
        },
        "markers": ("captions", "sign_language", "hearing_loop", "lip_reading", "hearing_aids", "text_relay",
                    "visual_alerts", "vibrating_alerts", "transcription"),
    },
    "Speech": {
        "mentions": (r"speech (?:impair\w*|disabilit\w*|difficult\w*|disorders?|differences?|conditions?)",
                     r"(?:stammer|stutter)\w*", r"aphasia", r"dysarthria", r"apraxia", r"non[- ]?verbal",
                     r"non[- ]?speaking", r"(?:limited|atypical|unclear|impaired|slurred) speech",
                     r"communication (?:disabilit\w*|impairments?|difficult\w*|disorders?)",
                     r"speech and language (?:needs|conditions?|difficult\w*)",
                     r"(?:people|users|those|customers|patients) who (?:cannot|can't|do not|don't) (?:speak|talk)",
                     r"(?:difficulty|difficulties|trouble) (?:with )?(?:speaking|communicating)",
                     r"(?:get|getting) (?:their|the|your|his|her) words out",
                     r"without (?:reliable|clear) speech", r"(?:cannot|can't) rely on speech",
                     r"(?:if|when|for whom) speaking is (?:hard|difficult) for (?:them|you|someone)",
                     r"(?:whose|their) speech is affected"),
        "supports": {
            "aac": (r"augmentative (?:and|or) alternative communication", r"\bAAC\b",
                    r"speech[- ]generating devices?", r"communication (?:boards?|devices?|aids?|cards?|apps?|books?)",
                    r"picture exchange", r"\bPECS\b", r"speech[- ]to[- ]speech relay", r"symbol boards?"),
            "text_instead_of_voice": TEXT_INSTEAD_OF_VOICE,
            # Another way to take part than speaking: for people who speak with difficulty, not for those who hear so.
            "instead_of_speaking": (r"instead of (?:speaking|talking)", r"alternatives? to speaking",
                                    r"(?:typed|text|written|chat)(?:[- ]based)? alternatives? to (?:speech|speaking)",
                                    r"discussion boards? as an alternative"),
            "written_channels": (r"(?:chat|written|email|messaging|typed)(?:[- ]based)? (?:channels?|contact|"
                                 r"communication|responses?|answers?)", r"in writing", *WRITTEN_CONTACT),
            "time_to_speak": (r"(?:extra|more|additional|enough) time to (?:speak|respond|answer|reply|talk)",
                              r"patien(?:t|ce) (?:listening|listeners?|when listening)",
                              r"without interrupting", r"(?:not|never|n't) (?:\w+ ){0,2}finish\w* (?:their|"
                              r"someone's|people's) sentences",
                              r"finish(?:ing)? (?:their|someone's|people's) sentences",
                              r"wait for (?:an |the |their )?(?:answer|reply|response)"),
            "text_to_speech": (r"text[- ]to[- ]speech",),
            "speech_therapy": (r"speech (?:and language )?therap\w*",),
            "intermediaries": (r"(?:communication )?intermediar(?:y|ies)", r"communication support workers?"),
            "voice_tolerant": (r"(?:speech|voice) recognition (?:that|which) (?:handles|understands|tolerates|"
                               r"adapts)", r"alternatives? to (?:voice|speech)[- ](?:only|control|input)",
                               r"(?:typed|text) alternatives? to (?:voice|spoken) (?:commands?|input|control)"),
        },
        "markers": ("aac", "speech_therapy", "voice_tolerant", "instead_of_speaking"),
    },
    "Mobility": {
        "mentions": (r"wheelchair (?:users?|user's)", r"(?:people|those|users|visitors|passengers) (?:who|that) use "
                     r"(?:a )?wheelchairs?", r"wheelchairs?",
                     r"mobility (?:impair\w*|disabilit\w*|difficult\w*|needs|limitations?|issues|problems)",
                     r"physical(?:ly)?[- ](?:disabilit\w*|disabled|impair\w*|limitations?)",
                     r"motor (?:impairments?|disabilit\w*|difficult\w*)",
                     r"(?:limited|reduced|restricted) (?:mobility|dexterity|movement|reach|grip|strength)",
                     r"paraly\w*", r"amput\w*", r"spinal cord injur\w*", r"cerebral palsy",
                     r"(?:difficulty|difficulties|trouble) (?:with )?(?:walking|climbing|standing|moving)", r"crutches",
                     r"walking (?:frames?|sticks?|aids?)", r"(?:people|users|those) who (?:cannot|can't) use a mouse",
                     r"(?:cannot|can't|unable to) (?:stand|walk|climb stairs)", r"arthritis"),
        "supports": {
            "ramps": (r"ramps?", r"step[- ]free", r"level (?:access|entry|entrances?|boarding|thresholds?|paths?)",
                      r"without (?:stairs|steps)", r"path of travel",
                      r"(?:curb|kerb)side (?:voting|pick[- ]?ups?|service)",
                      r"(?:kerb|curb) cuts?",
                      r"dropped kerbs?", r"no steps"),
            "lifts": (r"lifts", r"elevators?", r"(?:a|an|the|working|accessible) lift\b", r"stair ?lifts?",
                      r"platform lifts?", r"by lift", r"lift (?:status|outages?|access)", r"wheelchair lifts?"),
            "doors": (r"(?:wide|wider|widened|automatic|power[- ]assisted) (?:doors?|doorways?|entrances?|aisles?)",
                      r"automatic door openers?",
                      r"\d+ ?(?:mm|cm|inch(?:es)?) (?:clear )?(?:door(?:way)?s?|door openings?)",
                      r"door(?:way)?s? (?:\w+ ){0,2}\d+ ?(?:mm|cm|inch(?:es)?)", r"level thresholds?",
                      r"(?:keep (?:the )?aisles clear|clear aisles|wide aisles)"),
            "accessible_toilets": (r"accessible (?:toilets?|restrooms?|bathrooms?|washrooms?|showers?)",
                                   r"changing places", r"grab (?:rails|bars)", r"roll[- ]in showers?",
                                   r"wet rooms?", r"(?:walk|roll)[- ]in showers?", r"level[- ]access showers?",
                                   r"(?:ceiling |mobile |patient )?hoists?"),
            "parking": (r"(?:accessible|disabled|blue[- ]badge|reserved) (?:parking|bays?|spaces?)",
                        r"drop[- ]off (?:points?|zones?)",
                        r"parking spaces? (?:next to|near|close to|by) (?:the )?(?:door|entrance)"),
            "reach": (r"(?:lower(?:ed)?|reachable|adjustable|accessible)[- ](?:counters?|desks?|tables?|controls?|"
                      r"shelves|workstations?|service points?|worktops?|booths?|sinks?|switches)",
                      r"height[- ]adjustable", r"within reach", r"(?:from|in) a seated position",
                      r"lever (?:taps|handles?)", r"lowered (?:sections?|checkouts?|tills?|booths?)",
                      r"(?:checkouts?|counters?|tills?|desks?) (?:is |are )?lowered", r"lower (?:voting )?booths?",
                      r"(?:wheelchair|seated|sitting|reachable) height", r"sit[- ]stand desks?",
                      r"(?:for|to) (?:someone|a person|people|users) (?:who (?:is|are) )?seated", r"lifted down",
                      r"(?:sockets|switches) (?:and (?:switches|sockets) )?between", r"signature stamps?"),
            "wheelchair_access": (r"wheelchair[- ]accessible", r"wheelchair (?:spaces?|access|seating|bays?)",
                                  r"(?:turning|circulation) space"),
            "keyboard_switch": (r"keyboard[- ](?:only|alone|accessible|access|navigation|shortcuts)",
                                r"(?:with|by|from) (?:a|the) keyboard (?:alone|only)",
                                r"(?:operable|usable|driven|navigable) (?:\w+ ){0,2}(?:with|by) (?:a |the )?keyboard"),
            # Input for people who cannot use a keyboard and mouse as others do (keyboard access itself serves
            # screen-reader users as much, so it only deepens).
            "switch_access": (r"switch (?:access|controls?|devices?|users?)",
                              r"(?:with|by) (?:a |the )?keyboard or (?:a )?switch", r"voice control\w*",
                              r"eye[- ]?(?:gaze|tracking)", r"sip[- ]and[- ]puff",
                              r"single[- ]pointer", r"touch targets?", r"target sizes?", r"split keyboards?"),
            "low_floor": (r"low[- ]floors?", r"boarding (?:ramps?|assistance)", r"kneeling (?:bus\w*|vehicles?)",
                          r"buses (?:\w+ ){0,2}kneel\w*", r"securement (?:areas?|spaces?)", r"paratransit",
                          r"(?:airport|station|passenger|travel) assistance", r"assistance from check[- ]in",
                          r"adapted (?:vehicles?|cars?)", r"door[- ]to[- ]door (?:transport|bus\w*)",
                          r"(?:picks?|picking) (?:\w+ ){0,2}up (?:from|at) (?:their|the|your) (?:door|home)"),
            "evacuation": (r"evac(?:uation)? (?:chairs?|lifts?|elevators?)", r"refuge (?:areas?|points?|spaces?)"),
            "mobility_aids": (r"mobility aids?", r"(?:power(?:ed)?|electric) wheelchairs?", r"mobility scooters?",
                              r"prosthe(?:ses|sis|tic \w+)",
                              r"accessible (?:routes?|paths?|pathways?|entrances?)",
                              r"(?:smooth|even|firm) (?:paths|surfaces|pavements|ground)"),
            "seating": (r"(?:benches|seating|seats|resting places|places to sit)",),
            "priority_seats": (r"priority seat\w*", r"(?:a )?chair for (?:anyone|people|those) who (?:cannot|can't) "
                               r"stand", r"benches (?:every|at regular)", r"bed (?:\w+ ){0,4}height for transfers"),
        },
        "markers": ("ramps", "lifts", "doors", "accessible_toilets", "parking", "reach", "wheelchair_access",
                    "low_floor", "mobility_aids", "evacuation", "switch_access", "priority_seats"),
    },
    "Neuro": {
        "mentions": (r"epilep\w*", r"seizures?", r"parkinson'?s?", r"multiple sclerosis", r"(?-i:MS)",
                     r"neurological (?:conditions?|disorders?|disabilit\w*|impairments?|differences?|illness\w*)",
                     r"(?:brain|head) injur\w*", r"migraines?", r"tremors?", r"stroke survivors?",
                     r"(?:had|after|following) a stroke", r"motor neurone disease", r"dementia",
                     r"huntington'?s?", r"narcolepsy", r"tourette'?s?", r"tics?", r"chronic fatigue",
                     r"photosensitiv\w*"),
        "supports": {
            "no_flashing": (r"(?:no|without|avoid\w*|free (?:of|from)|limit\w*|reduc\w*) (?:\w+ ){0,2}(?:flash\w*|"
                            r"flicker\w*|strob\w*)", r"three flashes", r"seizure warnings?",
                            r"(?:flash\w*|flicker\w*|strob\w*) (?:warnings?|tests?|checks?)"),
            "flash_content": (r"(?:flash\w*|flicker\w*|strob\w*) (?:content|effects?|images?|animations?|lights?|"
                              r"lighting|graphics?|sequences?)",),
            "seizure_plan": (r"(?:seizure|epilepsy) (?:first[- ]aid|response|action plans?|protocols?|training|"
                             r"(?:care )?plans?)", r"first[- ]aid (?:training|for seizures)",
                             r"cushion (?:the|their) head",
                             r"what to do (?:if|when) (?:someone|a person) has a seizure"),
            "flexible_hours": FLEXIBLE_HOURS,
            "rest_breaks": (r"rest breaks?", r"(?:regular|frequent|extra) breaks", r"breaks built in",
                            r"no back[- ]to[- ]back (?:meetings|sessions)"),
            "large_targets": (r"(?:large|larger|bigger) (?:buttons|targets|touch targets|controls|keys)",
                              r"toleran\w* (?:of|for) (?:tremors?|shaking|unsteady)",
                              r"steady(?:ing)? (?:aids?|grips?)"),
            "rest_seating": (r"(?:rest areas?|seating|benches|places to rest)",),
            "medical": (r"medication (?:times|breaks|storage|schedules|reminders)",
                        r"(?:medical|hospital) appointments", r"(?:medical|sick|health) leave",
                        r"time off for (?:\w+ )?appointments", r"(?:take|takes|taking) (?:their )?medication"),
            "memory_aids": (r"memory aids?", r"reminders?", r"dementia[- ]friendly"),
            "clear_communication": (r"speak(?:ing)? (?:slowly|clearly)",
                                    r"one (?:instruction|step|question) at a time"),
        },
        "markers": ("no_flashing", "seizure_plan"),
    },
    "Gen/Dev": {
        "mentions": (r"down(?:'s)? syndrome", r"fragile x", r"intellectual(?:ly)? (?:disabilit\w*|disabled|"
                     r"impairments?)", r"developmental (?:disabilit\w*|delays?|conditions?|disorders?)",
                     r"williams syndrome", r"genetic (?:conditions?|disorders?|syndromes?)", r"global delay",
                     r"fetal alcohol"),
        "supports": {
            "easy_read": EASY_READ,
            "pictures": (r"(?:pictures?|symbols?|pictograms?|illustrations?) (?:alongside|next to|to support)",
                         r"picture[- ]based", r"pictorial", r"(?:sentences|text|words) with pictures"),
            "plain_language": PLAIN_LANGUAGE,
            "supported_employment": (r"supported (?:employment|work|internships?|living|housing)",
                                     r"job coach\w*", r"supported decision[- ]making",
                                     r"third[- ]party mandates?",
                                     r"(?:someone|a person) (?:you|they) trust to help (?:\w+ ){0,2}(?:manage|decide)"),
            "individual_plans": (r"individual(?:i[sz]ed)? (?:education|support|learning|care) plans?", r"\bIEPs?\b",
                                 r"personali[sz]ed (?:support|plans?|learning)"),
            "step_by_step": STEP_BY_STEP,
            "early_intervention": (r"early (?:intervention|years support)", r"developmental support"),
            "support_workers": (r"support workers?", r"personal assistants?", r"self[- ]advoca\w*",
                                r"(?:trusted|support) (?:person|people)", r"advocates?",
                                r"appropriate adults?", r"key workers?"),
            "life_skills": (r"life skills", r"independent living skills", r"travel training"),
        },
        "markers": ("supported_employment", "early_intervention"),
    },
    "Learning": {
        "mentions": (r"dyslexi\w*", r"dysgraphi\w*", r"dyscalculi\w*",
                     r"(?:specific )?learning (?:disabilit\w*|difficult\w*|differences?|disorders?)",
                     r"reading (?:difficult\w*|disabilit\w*|disorders?)",
                     r"(?:difficulty|difficulties|trouble) (?:with )?(?:reading|writing|spelling|numbers|maths?|math)"),
        "supports": {
            "readable_fonts": (r"dyslexia[- ]friendly (?:fonts?|formats?|design|layouts?)",
                               r"(?:clear|sans[- ]serif|readable|simple|adjustable) fonts?",
                               r"(?:coloured|colored|tinted|cream|pastel) (?:overlays|"
                               r"paper|backgrounds?)", r"reading rulers?", r"(?:short|shorter) paragraphs"),
            "text_to_speech": (r"text[- ]to[- ]speech", r"reading pens?", r"C-?Pens?", r"Read ?& ?Write",
                               r"read[- ]aloud (?:tools?|functions?|software|features?|buttons?)",
                               r"reads? (?:the |out )?(?:\w+ )?text (?:aloud|out loud)", r"text read (?:aloud|out)",
                               r"audiobooks?", r"audio versions?", r"screen readers?"),
            "speech_to_text": (r"speech[- ]to[- ]text", r"dictation(?: software| tools?)?", r"voice typing"),
            "number_aids": (r"calculators?", r"number (?:lines|aids|grids|charts)", r"maths? aids?"),
            "extra_time": (r"(?:extra|additional|extended)[- ]time",),
            # Exam access arrangements (ADA Title III testing accommodations; UDL's options for expression).
            "exam_arrangements": (r"exam(?:ination)? (?:accommodations?|access arrangements|adjustments)",
                                  r"access arrangements", r"testing accommodations?", r"readers? (?:or|and) scribes?",
                                  r"scribes?", r"(?:\d+ ?% )?(?:extra|additional|extended) time (?:in|on|for) "
                                  r"(?:\w+ ){0,2}(?:exams?|tests?|assessments?|quiz\w*|assignments?|coursework|"
                                  r"written \w+)", r"\d+ ?% extra time", r"extended[- ]time options?",
                                  r"(?:exams?|tests?|quiz\w*|assessments?)(?: \w+){0,3} (?:with|allow|have|get) "
                                  r"(?:\w+ ){0,2}(?:extra|additional|extended) time",
                                  r"untimed (?:tests?|quiz\w*|exams?|options?)", r"study skills (?:tutors?|support)"),
            "easy_read": EASY_READ,
            "plain_language": PLAIN_LANGUAGE,
            "step_by_step": STEP_BY_STEP,
            "spell_check": (r"spell[- ]?check\w*", r"grammar check\w*", r"word prediction"),
            "alternative_assessment": (r"(?:oral|alternative|spoken) (?:exams?|assessments?|formats?|tests?)",),
            "notes": (r"(?:lecture )?(?:notes|slides) in advance", r"recorded (?:lectures|lessons|classes)",
                      r"(?:lecture|lesson|class) recordings",
                      r"note[- ]?takers?", r"note[- ]taking (?:support|help|tools?)", r"lecture capture",
                      r"recordings (?:kept|available|of (?:lectures|lessons|meetings))"),
        },
        "markers": ("readable_fonts", "exam_arrangements", "spell_check"),
    },
    "Sens/Cog": {
        "mentions": (r"autis\w*", r"\bASD\b", r"ADHD", r"attention[- ]deficit",
                     r"sensory (?:processing|sensitivit\w*|overload|needs|issues|differences?)",
                     r"neurodiverg\w*", r"neurodivers\w*", r"neurodevelopmental",
                     r"cognitive (?:disabilit\w*|impairments?|differences?|needs|conditions?|difficult\w*|"
                     r"accessibility)", r"executive function\w*",
                     r"(?:memory|attention|concentration) (?:difficult\w*|problems|impairments?)",
                     r"sensitiv\w* to (?:noise|sound|light|crowds)",
                     r"(?:difficulty|difficulties|trouble) (?:with )?"
                     r"(?:remembering|concentrating|focusing|paying attention)",
                     r"(?:find|finds|finding) (?:\w+ ){0,3}overwhelming"),
        "supports": {
            "quiet_room": QUIET_ROOM,
            "quiet_spaces": (r"quiet (?:hours?|times?|sessions?|mornings?)",
                             r"(?:low|reduced)[- ]sensory", r"sensory[- ](?:friendly|rooms?|kits?|maps?|bags?|spaces?)",
                             r"relaxed (?:performances?|sessions?|openings?|screenings?)", r"sensory gardens?",
                             r"(?:lower|lowered|dimmed|reduced|low|softer) (?:lights?|lighting|noise|sound|music)",
                             r"(?:no|without|turn\w* (?:off|down)(?: the)?) (?:background )?music",
                             r"calm (?:mornings?|hours?|sessions?)", r"quieter (?:times?|hours?|periods?)",
                             r"(?:waiting rooms?|venues?|shops?|stores?|galleries) (?:is|are) quieter",
                             r"soundscapes (?:are )?(?:off|turned off)",
                             r"(?:no|without) (?:whistles|announcements)"),
            "headphones": (r"noise[- ](?:cancell?ing|reducing) headphones", r"ear ?(?:plugs|defenders)"),
            "routines": (r"(?:clear|predictable|consistent|structured) (?:weekly )?"
                         r"(?:routines?|schedules?|structure|timetables?|layout)", r"visual (?:timetables?|schedules?)",
                         r"(?:the )?same (?:warm[- ]up|routine|module layout|layout) every (?:week|session|time)",
                         r"visual cue cards?"),
            "focus": (r"focus (?:tools|apps?|time)", r"timers?",
                      r"(?:break|breaking) (?:tasks|work|content|information) into",
                      r"movement breaks",
                      r"(?:short|shorter) (?:tasks|modules)", r"(?:chances?|time|freedom) to move around",
                      r"(?:split|broken|chunked) into (?:\w+ ){0,2}chunks", r"checklists", r"reminders?"),
            # Nothing that moves, plays or distracts unless the user wants it (WCAG 2.2.2, 2.3.3).
            "distraction_control": (r"(?:reduced|fewer|minimi[sz]ed?|limit\w*) distractions?", r"distraction[- ]free",
                                    r"animations? (?:\w+ ){0,4}(?:switched|turned) off",
                                    r"(?:turn|switch)(?:ed)? off animations?", r"reduced? motion",
                                    r"autoplay (?:\w+ ){0,3}(?:switched|turned) off", r"(?:no|without) autoplay",
                                    r"pause,? stop,? (?:and|or) hide"),
            "plain_language": (*PLAIN_LANGUAGE, r"clear (?:language|expectations|instructions)",
                               r"(?:literal|direct) (?:language|communication)"),
            "advance_info": (r"(?:advance|prior) (?:information|notice)", r"what to expect", r"virtual tours?",
                             r"(?:questions|information|materials?|schedules?|slides|agendas?|tasks|photos?|"
                             r"pictures)(?: \w+){0,8}? (?:(?:are|is) )?(?:(?:sent|shared|given|provided) )?"
                             r"(?:in advance|ahead of time|beforehand|ahead(?=\s*(?:[.,;:)]|$))|"
                             r"(?:\d+|a|one|two) (?:hours?|days?|weeks?) (?:ahead|before(?:hand)?|early|in advance))",
                             r"what was coming", r"pre[- ](?:trial |event )?visits?", r"familiari[sz]ation visits?"),
            "stories": (r"social stor(?:y|ies)", r"visual stor(?:y|ies)"),
            # WCAG 2.2's success criteria for memory and attention: 3.2.6 consistent help, 3.3.7 redundant entry,
            # 3.3.8 accessible authentication, 3.2.3 consistent navigation.
            "cognitive_design": (r"consistent (?:help|navigation)", r"help (?:is )?in the same place",
                                 r"(?:in|appear in) the same (?:order|place) on every (?:page|screen)",
                                 r"re-?enter (?:information|details|data)", r"redundant entry",
                                 r"(?:remembering|transcribing|memori[sz]ing) (?:a |the )?(?:code|password|passcode)",
                                 r"(?:cognitive function|memory) tests?", r"password managers?"),
            "lighting": (r"(?:dimmable|dimmed|soft|softer|natural|adjustable) light\w*", r"blackout blinds",
                         r"(?:fluorescent|bright|harsh) light\w*"),
        },
        "markers": ("quiet_spaces", "headphones", "routines", "stories", "advance_info", "cognitive_design",
                    "distraction_control"),
    },
    "Mental": {
        "mentions": (r"mental (?:health|illness\w*|disorders?|distress)", r"depress\w*", r"anxi\w*", r"bipolar",
                     r"schizophreni\w*", r"psychos[ie]s", r"psychiatric", r"psychosocial (?:disabilit\w*|needs)",
                     r"\bPTSD\b", r"post[- ]traumatic", r"eating disorders?", r"\bOCD\b", r"obsessive[- ]compulsive",
                     r"emotional (?:distress|wellbeing|well-being)", r"suicid\w*", r"addiction\w*",
                     r"substance (?:use|misuse|abuse)", r"psychological (?:distress|"
                     r"disabilit\w*|conditions?)"),
        "supports": {
            "counselling": (r"counsell?ing", r"(?<!speech )(?<!physical )(?<!occupational )therap(?:y|ies|ists?)",
                            r"psychologists?", r"mental health (?:services|support|professionals|care)",
                            r"counsell?ors?"),
            "flexible_hours": FLEXIBLE_HOURS,
            # Leave serves anyone who is ill: it deepens Mental where the sentence is about it, never names it.
            "leave": (r"(?:paid|sick|medical|extended|mental health) leave", r"time off", r"phased returns?",
                      r"(?:reduced|manageable|adjusted) (?:workload|hours)", r"(?:take|taking) (?:a )?leave"),
            "peer_support": (r"peer (?:support|supporters|groups|networks|mentors?)", r"support groups?",
                             r"befriending(?: schemes?| services?)?", r"social prescribing", r"listening services?",
                             r"men'?s sheds?"),
            "quiet_room": QUIET_ROOM,
            "stigma": (r"stigma\w*", r"mental health (?:awareness|first aid)"),
            "crisis": (r"crisis (?:lines?|support|services|teams?|plans?)", r"helplines?", r"hotlines?"),
            "employee_assistance": (r"employee assistance (?:programmes?|programs?)", r"\bEAPs?\b"),
            "check_ins": (r"(?:regular|wellbeing|one[- ]to[- ]one)(?: one[- ]to[- ]one)? check[- ]ins?",
                          r"wellbeing (?:programmes?|programs?|support)",
                          r"checks? in (?:regularly|often|weekly)"),
            "trauma_informed": (r"trauma[- ]informed", r"de-?escalation", r"calm,? unhurried approach"),
        },
        "markers": ("crisis", "peer_support", "counselling", "check_ins", "trauma_informed"),
    },
}

# Supports that serve more than one category, and the categories each serves (the key names the support in each
# of them). Where a sentence names none of those groups, the support covers them all ("plain-language summaries");
# where it names one of them, it deepens only the named ("quiet rooms for autistic visitors" is Sens/Cog's).
SHARED_MARKERS: dict[str, tuple[str, ...]] = {
    "easy_read": ("Gen/Dev", "Learning"),
    "plain_language": ("Gen/Dev", "Learning", "Sens/Cog"),
    "step_by_step": ("Gen/Dev", "Learning"),
    "text_instead_of_voice": ("Hearing", "Speech"),
    "flexible_hours": ("Neuro", "Mental"),
    "quiet_room": ("Sens/Cog", "Mental"),
}

# Where each support comes from: the literature the categories are drawn from, so a term can be traced and
# argued with. WCAG = WCAG 2.2 success criteria and their Understanding documents; ADA = the 2010 ADA Standards
# for Accessible Design (section numbers) and the DOJ's effective-communication guidance; 508 = the revised
# Section 508 / 255 standards (36 CFR 1194, chapters 4 and 6); ICF = WHO's International Classification of
# Functioning (2001), the body function or activity the support compensates; UDL = CAST's Universal Design for
# Learning guidelines. Summaries in our own words.
SOURCES: dict[str, str] = {
    # Vision
    "screen_reader": "WCAG 4.1.2 name, role, value and 1.3.1 info and relationships (what screen readers rely on); "
                     "508 chapter 5 (compatibility with assistive technology); ICF b210 seeing",
    "braille": "ADA 703.3 braille on signs, 707.8 braille instructions on ATMs; ICF b210 seeing",
    "magnification": "WCAG 1.4.4 resize text (200%) and 1.4.10 reflow (400% zoom without two-way scrolling)",
    "large_print": "ADA 703.5 visual characters (minimum heights); WCAG 1.4.4 resize text; ICF b2100 visual acuity",
    "contrast": "WCAG 1.4.3 contrast minimum (4.5:1), 1.4.11 non-text contrast (3:1); ADA 703.5.1 non-glare, "
                "contrasting signs",
    "not_colour_alone": "WCAG 1.4.1 use of colour; ICF b2152 colour vision",
    "tactile": "ADA 705 detectable warnings and 703.2 raised characters; 508 407.3.1 tactilely discernible "
               "controls; ICF b265 touch as a substitute for sight",
    "audio_description": "WCAG 1.2.3, 1.2.5 audio description of prerecorded video; 508 chapter 6 (AD in "
                         "players); DOJ effective-communication guidance (qualified readers)",
    "alt_text": "WCAG 1.1.1 non-text content (text alternatives, long descriptions)",
    "guide_dog": "ADA Title II/III service-animal rules (28 CFR 35.136); sighted-guide technique from orientation "
                 "and mobility training; ICF d460 moving around in different locations",
    "audible_signals": "ADA 707.5 speech output on ATMs and fare machines; 508 402.2 speech-output enabled; "
                       "ADA transit rules (49 CFR 37.167) stop announcements",
    # Hearing
    "captions": "WCAG 1.2.2 captions (prerecorded), 1.2.4 captions (live); 508 chapter 6 caption processing",
    "sign_language": "WCAG 1.2.6 sign language (prerecorded); DOJ effective-communication guidance (qualified "
                     "interpreters)",
    "interpreters": "DOJ effective-communication guidance, 28 CFR 35.160 auxiliary aids (qualified interpreters)",
    "hearing_loop": "ADA 706 assistive listening systems (induction loop, FM, infrared); ICF b230 hearing",
    "visual_alerts": "ADA 702.1 and NFPA 72 visible alarms; ADA 810.7 visual information on transit platforms; "
                     "ICF b230 hearing",
    "transcription": "WCAG 1.2.1 transcripts for audio-only, 1.2.8 media alternative; DOJ guidance on real-time "
                     "captioning (CART)",
    "text_relay": "508 412 real-time text and relay compatibility; FCC telecommunications relay services",
    "text_instead_of_voice": "508 412.3 and ADA 28 CFR 35.160: a text channel wherever voice is the only way in; "
                             "serves ICF b230 hearing and b310-b340 voice and speech alike",
    "instead_of_speaking": "DOJ effective-communication guidance (people with speech disabilities may write or "
                           "type); UDL 'options for expression and communication'",
    "vibrating_alerts": "ADA 809.5.5 and NFPA 72 (visible and tactile notification appliances for sleeping "
                        "rooms); ICF b230 hearing",
    "written_channels": "DOJ effective-communication guidance (written communication for people with speech "
                        "disabilities)",
    "lip_reading": "DOJ effective-communication guidance (communicating with people who lip-read); "
                   "ICF d310 communicating by receiving spoken messages",
    "hearing_aids": "WHO World report on hearing (2021): hearing aids and cochlear implants; ICF e1251 assistive "
                    "products for communication",
    "written_notes": "DOJ effective-communication guidance (exchange of written notes for simple exchanges)",
    # Speech
    "aac": "ICF d360 using communication devices and techniques; ASHA's practice portal on augmentative and "
           "alternative communication",
    "time_to_speak": "DOJ effective-communication guidance for people with speech disabilities (give time, do not "
                     "finish sentences); ICF b330 fluency and rhythm of speech",
    "text_to_speech": "508 chapter 4 (speech output); ICF d360 communication devices",
    "speech_therapy": "ICF b310-b340 voice and speech functions; rehabilitation in the WHO World report on "
                      "disability (2011)",
    "intermediaries": "UK Ministry of Justice registered intermediary scheme; DOJ effective-communication "
                      "guidance (speech-to-speech support)",
    "voice_tolerant": "WCAG 2.5.4 motion actuation and 2.1.1 keyboard (no function only by voice); 508 407.2 "
                      "(not dependent on speech)",
    # Mobility
    "ramps": "ADA 402 accessible routes, 405 ramps (1:12), 406 curb ramps; ICF d450 walking",
    "lifts": "ADA 407 elevators, 410 platform lifts; ICF d455 moving around (climbing)",
    "doors": "ADA 404.2.3 clear width (32 in.), 404.3 automatic doors, 403.5 clear width of routes",
    "accessible_toilets": "ADA 603-608 toilet rooms, grab bars and roll-in showers; UK Changing Places guidance",
    "parking": "ADA 208 and 502 accessible parking spaces, 503 passenger loading zones",
    "reach": "ADA 308 reach ranges (15-48 in.), 902 work surfaces, 904 sales and service counters; 508 407.8 "
             "operable parts within reach",
    "wheelchair_access": "ADA 304 turning space, 305 clear floor space, 802 wheelchair spaces in assembly areas",
    "keyboard_switch": "WCAG 2.1.1 keyboard and its Understanding document (keyboard users include blind and "
                       "motor-impaired people)",
    "switch_access": "WCAG 2.5.7 dragging movements, 2.5.8 target size (24 px); 508 402.4 and 407.8 (operable "
                     "without fine motor control); ICF d440 fine hand use",
    "low_floor": "ADA transportation rules (49 CFR 38: lifts, ramps, securement areas; 37.121 paratransit); "
                 "EU passenger-rights rules on assistance for reduced mobility",
    "evacuation": "ADA 207 accessible means of egress, 216.4 areas of refuge; NFPA emergency evacuation "
                  "planning guide",
    "mobility_aids": "WHO Priority Assistive Products List (wheelchairs, walking aids, prostheses); ICF e120 "
                     "products for personal mobility",
    "seating": "ADA 903 benches; ICF d415 maintaining a body position",
    "priority_seats": "ADA transit rules (49 CFR 38.27 priority seating signs); ICF d420 transferring oneself",
    # Neurological
    "no_flashing": "WCAG 2.3.1 three flashes or below threshold, 2.3.2 three flashes; ICF b110 (seizures)",
    "flash_content": "WCAG 2.3.1 (content that flashes is the risk named)",
    "seizure_plan": "Epilepsy Foundation and WHO epilepsy fact sheet: seizure first aid and care plans",
    "flexible_hours": "EEOC guidance on reasonable accommodation (modified schedules); MS Society and Mind "
                      "guidance on fluctuating conditions; ICF b130 energy, b152 emotional functions",
    "rest_breaks": "EEOC guidance (breaks as an accommodation); ICF b455 exercise tolerance (fatigue)",
    "large_targets": "WCAG 2.5.8 target size and its Understanding document (tremor); ICF b765 involuntary "
                     "movements",
    "rest_seating": "ADA 903 benches; ICF b455 exercise tolerance",
    "medical": "EEOC guidance (leave and schedule changes for treatment); ICF b110-b199 as managed in care",
    "memory_aids": "WHO dementia toolkit (reminders, memory aids); ICF b144 memory",
    "clear_communication": "Alzheimer's Society and Stroke Association communication guidance; ICF b167",
    # Genetic and developmental
    "easy_read": "Inclusion Europe's European easy-to-read standards; UN CRPD art. 21; W3C COGA "
                 "'Making content usable'",
    "pictures": "Inclusion Europe easy-to-read standards (a picture beside each idea); W3C COGA objective 3",
    "plain_language": "WCAG 3.1.5 reading level and W3C COGA 'use clear words'; US Plain Writing Act 2010",
    "supported_employment": "AAIDD supports paradigm; UN CRPD art. 12 (supported decision-making) and 27 "
                            "(work); job coaching in EEOC guidance",
    "individual_plans": "IDEA individualized education programs (34 CFR 300.320); UDL",
    "step_by_step": "W3C COGA 'help users understand what things are and how to use them'; Inclusion Europe",
    "early_intervention": "IDEA Part C early intervention; WHO/UNICEF early childhood development and disability",
    "support_workers": "UN CRPD art. 19 (personal assistance); PACE Code C (appropriate adults)",
    "life_skills": "AAIDD adaptive behaviour (practical skills); ICF d5-d6 self-care and domestic life",
    # Learning
    "readable_fonts": "British Dyslexia Association style guide; W3C COGA; WCAG 1.4.12 text spacing",
    "speech_to_text": "UDL 'options for expression' (tools for composition); ICF d170 writing",
    "number_aids": "UDL 'options for expression' (calculators, manipulatives); ICF b172 calculation",
    "extra_time": "ADA Title III testing accommodations (28 CFR 36.309); UDL",
    "exam_arrangements": "ADA Title III testing accommodations (28 CFR 36.309): extended time, readers, scribes, "
                         "separate rooms; UDL 'options for expression'",
    "spell_check": "UDL 'options for expression' (spell checkers, word prediction); ICF d170 writing",
    "alternative_assessment": "UDL 'multiple means of action and expression'",
    "notes": "UDL 'options for perception' (notes and recordings in advance); DOJ auxiliary aids (note-takers)",
    # Sensory-processing and cognitive
    "quiet_room": "National Autistic Society and Mind guidance on quiet, calm spaces; ICF b156 perception, "
                  "b152 emotional functions",
    "quiet_spaces": "National Autistic Society Autism Friendly Award (quiet hours, relaxed sessions, low "
                    "lighting); ICF b156 perception",
    "headphones": "National Autistic Society guidance (ear defenders, noise-cancelling headphones)",
    "routines": "W3C COGA 'help users find what they need' (consistent layout); NAS guidance on routines and "
                "visual timetables; ICF d230 carrying out daily routine",
    "focus": "W3C COGA 'help users focus' (chunking, checklists, reminders, timers); ICF b140 attention, "
             "b164 higher-level cognitive functions",
    "distraction_control": "WCAG 2.2.2 pause, stop, hide and 2.3.3 animation from interactions; W3C COGA 'help "
                           "users focus'; ICF b140 attention",
    "advance_info": "NAS guidance (visual stories, what to expect, questions in advance); W3C COGA 'help users "
                    "avoid mistakes'",
    "stories": "NAS guidance on social and visual stories",
    "lighting": "NAS sensory guidance (bright and fluorescent lighting); ICF b156 perception",
    "cognitive_design": "WCAG 3.2.6 consistent help, 3.3.7 redundant entry, 3.3.8 accessible authentication, "
                        "3.2.3 consistent navigation; ICF b144 memory",
    # Mental health
    "counselling": "WHO mental health action plan 2013-2030 (community-based services); ICF b152",
    "peer_support": "WHO QualityRights guidance on peer support; Mind's peer-support guidance",
    "stigma": "WHO mental health action plan (anti-stigma); Mental Health First Aid",
    "crisis": "WHO QualityRights; 988 Suicide and Crisis Lifeline and Samaritans helplines",
    "leave": "EEOC guidance on psychiatric disabilities (leave and reduced hours); Mind's wellness action plans "
             "(phased returns)",
    "employee_assistance": "EEOC guidance on psychiatric disabilities (employee assistance programmes)",
    "check_ins": "EEOC guidance (supervisory adjustments: regular check-ins); Mind's wellness action plans",
    "trauma_informed": "SAMHSA's concept of trauma and guidance for a trauma-informed approach (de-escalation)",
}
