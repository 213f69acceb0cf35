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
PLAIN_LANGUAGE = (r"plain (?:language|english|words)", r"simple (?:language|words|wording|english)",
                  r"jargon[- ]free")
STEP_BY_STEP = (r"step[- ]by[- ]step", r"(?:simple|short|clear),? (?:simple )?(?:instructions|steps)",
                r"(?:small|smaller|manageable) steps", r"one (?:instruction|step|question) at a time")
WRITTEN_CONTACT = (r"(?:live|web) chat", r"by (?:text(?: messages?)?|sms|e-?mail|chat)")

LEXICON: dict[str, CategoryTerms] = {
    "Vision": {
        "mentions": (r"blind(?:ness)?", r"deaf[- ]?blind\w*", r"(?:visually|vision|sight)[- ]impair\w*",
                     r"low[- ]vision", r"partial(?:ly)?[- ]sight\w*", r"(?:sight|vision) loss",
                     r"visual(?:ly)? (?:impair\w*|disabilit\w*)", r"vision disabilit\w*", r"colou?r[- ]?blind\w*",
                     r"colou?r vision deficienc\w*",
                     r"(?:people|users|those|visitors|readers) who (?:cannot|can't) see",
                     r"(?:difficulty|difficulties|trouble) (?:with )?seeing"),
        "supports": {
            "screen_reader": (r"screen[- ]?readers?", r"screen[- ]reading", r"JAWS", r"NVDA", r"VoiceOver", r"TalkBack",
                              r"ZoomText"),
            "braille": (r"braille",),
            "magnification": (r"(?:screen )?magnif\w*", r"enlarg\w* text"),
            "large_print": (r"large[- ]print", r"larger (?:text|fonts?|print)"),
            "contrast": (r"(?:high|strong|sufficient|good)[- ]contrast\w*", r"colou?r[- ]contrast\w*",
                         r"contrast ratios?", r"contrasting colou?rs?",
                         r"colou?r[- ]contrasting"),
            "not_colour_alone": (r"(?:not|never|n't) (?:\w+ ){0,2}colou?r alone", r"colou?r[- ]blind[- ]friendly",
                                 r"(?:patterns|labels|symbols|shapes) as well as colou?r"),
            "tactile": (r"tactile (?:paving|maps?|signs?|signage|markings?|flooring|indicators?|guides?|models?|"
                        r"graphics?|surfaces?|exhibits?|objects?|strips?)",
                        r"raised (?:lettering|letters|print|markings?|dots|symbols)",
                        r"handling (?:collections?|objects|sessions?)"),
            "audio_description": (r"audio[- ]descri\w*", r"described (?:video|diagrams?|images?|graphics?)",
                                  r"verbal descriptions?", r"describ\w* (?:\w+ ){0,3}(?:aloud|out loud)"),
            "alt_text": (r"alt(?:ernative)?[- ]text", r"text alternatives?", r"image descriptions?"),
            "guide_dog": (r"guide dogs?", r"white canes?", r"assistance dogs?"),
            "audible_signals": (r"audible (?:signals?|crossings?|announcements?|cues?|alerts?)",
                                r"talking (?:signs?|atms?|lifts?|elevators?|cash machines?)",
                                r"(?:spoken|audio|audible|voice)(?: and (?:visual|visible|text|written))? "
                                r"announcements?", r"audio guides?", r"(?:speech|voice|audio|spoken) output",
                                r"audio (?:ballots?|voting)", r"headphone (?:jacks?|sockets?)",
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
            "captions": (r"caption\w*", r"subtitl\w*"),
            # "sign language interpreters" is one support: interpreters count on their own only without it
            "sign_language": (r"sign[- ]language\w*(?: interpret\w*)?", r"\bBSL\b", r"\bASL\b", r"signers?"),
            "interpreters": (r"(?<!language )(?<!BSL )(?<!ASL )interpreters?",),
            "hearing_loop": (r"(?:hearing|induction|audio) loops?", r"assistive listening\w*", r"t-?coils?",
                             r"(?:FM|soundfield|sound[- ]field) systems?"),
            "visual_alerts": (r"visual (?:alarms?|alerts?|signals?|notifications?|displays?|information boards?)",
                              r"flashing (?:lights?|alarms?|beacons?)", r"vibrat\w* (?:alerts?|alarms?|pagers?)",
                              r"(?:text|visual) announcements?",
                              r"flash(?:es|ing)? (?:a )?lights? (?:as well as|instead of|alongside)"),
            "transcription": (r"transcri(?:pts?|ption|bed)", r"(?:real[- ]time|live) (?:captioning|text)",
                              r"speech[- ]to[- ]text", r"\bCART\b"),
            "text_relay": (r"(?:text|video) relay", r"relay services?", r"textphones?",
                           r"(?:text|chat|email|sms)(?:[- ]based)? (?:contact|options?|channels?|alternatives?)",
                           *WRITTEN_CONTACT),
            "lip_reading": (r"lip[- ]?read\w*", r"clear (?:face )?masks?", r"face the (?:person|listener|audience)"),
            "hearing_aids": (r"hearing aids?", r"cochlear implants?"),
            "written_notes": (r"pen and paper", r"notepads?", r"writ\w* (?:it )?down"),
        },
        "markers": ("captions", "sign_language", "hearing_loop", "lip_reading", "hearing_aids", "text_relay",
                    "visual_alerts", "transcription"),
    },
    "Speech": {
        "mentions": (r"speech (?:impair\w*|disabilit\w*|difficult\w*|disorders?|differences?|conditions?)",
                     r"(?:stammer|stutter)\w*", r"aphasia", r"dysarthria", r"apraxia", r"non[- ]?verbal",
                     r"non[- ]?speaking", r"(?:limited|atypical|unclear|impaired|slurred) speech",
                     r"communication (?:disabilit\w*|impairments?|difficult\w*|disorders?)",
                     r"speech and language (?:needs|conditions?|difficult\w*)",
                     r"(?:people|users|those|customers|patients) who (?:cannot|can't|do not|don't) (?:speak|talk)",
                     r"(?:difficulty|difficulties|trouble) (?:with )?(?:speaking|communicating)"),
        "supports": {
            "aac": (r"augmentative (?:and|or) alternative communication", r"\bAAC\b",
                    r"speech[- ]generating devices?", r"communication (?:boards?|devices?|aids?|cards?|apps?)"),
            "written_alternative": (r"(?:text|chat|written|email|messaging|typed)(?:[- ]based)? (?:options?|"
                                    r"alternatives?|channels?|contact|communication|responses?|answers?)",
                                    r"instead of (?:speaking|phone calls?|calling|talking)", r"in writing",
                                    *WRITTEN_CONTACT),
            "time_to_speak": (r"(?:extra|more|additional|enough) time to (?:speak|respond|answer|reply|talk)",
                              r"patien(?:t|ce) (?:listening|listeners?|when listening)",
                              r"without interrupting", r"(?:not|never|n't) (?:\w+ ){0,2}finish\w* (?:their|"
                              r"someone's|people's) sentences"),
            "text_to_speech": (r"text[- ]to[- ]speech",),
            "speech_therapy": (r"speech (?:and language )?therap\w*",),
            "intermediaries": (r"(?:communication )?intermediar(?:y|ies)", r"communication support workers?"),
            "voice_tolerant": (r"(?:speech|voice) recognition (?:that|which) (?:handles|understands|tolerates|"
                               r"adapts)", r"alternatives? to (?:voice|speech)[- ](?:only|control|input)"),
        },
        "markers": ("aac", "speech_therapy", "voice_tolerant"),
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
                     r"walking (?:frames?|sticks?|aids?)", r"(?:people|users|those) who (?:cannot|can't) use a mouse"),
        "supports": {
            "ramps": (r"ramps?", r"step[- ]free", r"level (?:access|entry|entrances?|boarding|thresholds?|paths?)",
                      r"without (?:stairs|steps)",
                      r"(?:kerb|curb) cuts?",
                      r"dropped kerbs?", r"no steps"),
            "lifts": (r"lifts", r"elevators?", r"(?:a|an|the|working|accessible) lift\b", r"stair ?lifts?",
                      r"platform lifts?"),
            "doors": (r"(?:wide|wider|widened|automatic|power[- ]assisted) (?:doors?|doorways?|entrances?|aisles?)",
                      r"automatic door openers?"),
            "accessible_toilets": (r"accessible (?:toilets?|restrooms?|bathrooms?|washrooms?|showers?)",
                                   r"changing places", r"grab (?:rails|bars)", r"roll[- ]in showers?",
                                   r"wet rooms?", r"(?:walk|roll)[- ]in showers?", r"level[- ]access showers?",
                                   r"(?:ceiling |mobile |patient )?hoists?"),
            "parking": (r"(?:accessible|disabled|blue[- ]badge|reserved) (?:parking|bays?|spaces)",
                        r"drop[- ]off (?:points?|zones?)"),
            "reach": (r"(?:lower(?:ed)?|reachable|adjustable|accessible)[- ](?:counters?|desks?|tables?|controls?|"
                      r"shelves|workstations?|service points?|worktops?|booths?|sinks?|switches)",
                      r"height[- ]adjustable", r"within reach", r"(?:from|in) a seated position",
                      r"lever (?:taps|handles)"),
            "wheelchair_access": (r"wheelchair[- ]accessible", r"wheelchair (?:spaces?|access|seating|bays?)",
                                  r"(?:turning|circulation) space"),
            "keyboard_switch": (r"keyboard[- ](?:only|alone|accessible|access|navigation|shortcuts)",
                                r"(?:with|by|from) (?:a|the) keyboard (?:alone|only)",
                                r"switch (?:access|controls?|devices?)", r"voice control\w*",
                                r"eye[- ]?(?:gaze|tracking)"),
            "low_floor": (r"low[- ]floors?", r"boarding (?:ramps?|assistance)", r"kneeling buses",
                          r"buses (?:\w+ ){0,2}kneel\w*"),
            "evacuation": (r"evac(?:uation)? (?:chairs?|lifts?|elevators?)", r"refuge (?:areas?|points?|spaces?)"),
            "mobility_aids": (r"mobility aids?", r"(?:power(?:ed)?|electric) wheelchairs?", r"mobility scooters?",
                              r"prosthe(?:ses|sis|tic \w+)",
                              r"accessible (?:routes?|paths?|pathways?|entrances?)",
                              r"(?:smooth|even|firm) (?:paths|surfaces|pavements|ground)"),
            "seating": (r"(?:benches|seating|seats|resting places|places to sit)",),
        },
        "markers": ("ramps", "lifts", "doors", "accessible_toilets", "parking", "reach", "wheelchair_access",
                    "low_floor", "mobility_aids", "evacuation"),
    },
    "Neuro": {
        "mentions": (r"epilep\w*", r"seizures?", r"parkinson'?s?", r"multiple sclerosis", r"(?-i:MS)",
                     r"neurological (?:conditions?|disorders?|disabilit\w*|impairments?|differences?|illness\w*)",
                     r"(?:brain|head) injur\w*", r"migraines?", r"tremors?", r"stroke survivors?",
                     r"(?:had|after|following) a stroke", r"motor neurone disease", r"dementia",
                     r"huntington'?s?", r"narcolepsy", r"tourette'?s?", r"chronic fatigue", r"photosensitiv\w*"),
        "supports": {
            "no_flashing": (r"(?:no|without|avoid\w*|free (?:of|from)|limit\w*|reduc\w*) (?:\w+ ){0,2}(?:flash\w*|"
                            r"flicker\w*|strob\w*)", r"three flashes", r"seizure warnings?",
                            r"(?:flash\w*|flicker\w*|strob\w*) (?:warnings?|tests?|checks?)"),
            "flash_content": (r"(?:flash\w*|flicker\w*|strob\w*) (?:content|effects?|images?|animations?|lights?|"
                              r"lighting|graphics?|sequences?)",),
            "seizure_plan": (r"(?:seizure|epilepsy) (?:first[- ]aid|response|action plans?|protocols?|training|"
                             r"plans?)", r"first[- ]aid (?:training|for seizures)"),
            "flexible_schedule": (r"flexible (?:hours|schedules?|working|work|deadlines|timetables?|start times)",
                                  r"rest breaks?", r"(?:regular|frequent|extra) breaks"),
            "large_targets": (r"(?:large|larger|bigger) (?:buttons|targets|touch targets|controls|keys)",
                              r"toleran\w* (?:of|for) (?:tremors?|shaking|unsteady)",
                              r"steady(?:ing)? (?:aids?|grips?)"),
            "rest_seating": (r"(?:rest areas?|seating|benches|places to rest)",),
            "medical": (r"medication (?:times|breaks|storage|schedules|reminders)",
                        r"(?:medical|hospital) appointments", r"(?:medical|sick|health) leave"),
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
                         r"picture[- ]based"),
            "plain_language": PLAIN_LANGUAGE,
            "supported_employment": (r"supported (?:employment|work|internships?|living|housing)",
                                     r"job coach\w*", r"supported decision[- ]making"),
            "individual_plans": (r"individual(?:i[sz]ed)? (?:education|support|learning|care) plans?", r"\bIEPs?\b",
                                 r"personali[sz]ed (?:support|plans?|learning)"),
            "step_by_step": STEP_BY_STEP,
            "early_intervention": (r"early (?:intervention|years support)", r"developmental support"),
            "support_workers": (r"support workers?", r"personal assistants?", r"self[- ]advoca\w*",
                                r"(?:trusted|support) (?:person|people)", r"advocates?",
                                r"appropriate adults?"),
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
                               r"(?:coloured|tinted) (?:overlays|"
                               r"paper|backgrounds?)", r"reading rulers?", r"(?:short|shorter) paragraphs"),
            "text_to_speech": (r"text[- ]to[- ]speech",
                               r"read[- ]aloud (?:tools?|functions?|software|features?|buttons?)",
                               r"reads? (?:the |out )?(?:\w+ )?text (?:aloud|out loud)", r"text read (?:aloud|out)",
                               r"audiobooks?", r"audio versions?", r"screen readers?"),
            "speech_to_text": (r"speech[- ]to[- ]text", r"dictation(?: software| tools?)?", r"voice typing"),
            "number_aids": (r"calculators?", r"number (?:lines|aids|grids|charts)", r"maths? aids?"),
            "extra_time": (r"(?:extra|additional) time",),
            "easy_read": EASY_READ,
            "plain_language": PLAIN_LANGUAGE,
            "step_by_step": STEP_BY_STEP,
            "spell_check": (r"spell[- ]?check\w*", r"grammar check\w*", r"word prediction"),
            "alternative_assessment": (r"(?:oral|alternative|spoken) (?:exams?|assessments?|formats?|tests?)",),
            "notes": (r"(?:lecture )?(?:notes|slides) in advance", r"recorded (?:lectures|lessons|classes)",
                      r"(?:lecture|lesson|class) recordings",
                      r"note[- ]?takers?", r"note[- ]taking (?:support|help|tools?)"),
        },
        "markers": ("readable_fonts",),
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
                     r"(?:remembering|concentrating|focusing|paying attention)"),
        "supports": {
            "quiet_spaces": (r"quiet (?:rooms?|spaces?|areas?|zones?|hours?|times?|sessions?|corners?)",
                             r"(?:low|reduced)[- ]sensory", r"sensory[- ](?:friendly|rooms?|kits?|maps?|bags?|spaces?)",
                             r"calm(?:ing)? (?:rooms?|spaces?|areas?)",
                             r"relaxed (?:performances?|sessions?|openings?|screenings?)", r"sensory gardens?",
                             r"(?:chill[- ]out|calm[- ]down|breakout|retreat) (?:zones?|rooms?|spaces?|areas?)",
                             r"(?:lower|lowered|dimmed|reduced|low|softer) (?:lights?|lighting|noise|sound|music)",
                             r"somewhere (?:calm|quiet)",
                             r"(?:no|without|turn\w* (?:off|down)(?: the)?) (?:background )?music"),
            "headphones": (r"noise[- ]cancell?ing headphones", r"ear ?(?:plugs|defenders)"),
            "routines": (r"(?:clear|predictable|consistent|structured) "
                         r"(?:routines?|schedules?|structure|timetables?)", r"visual (?:timetables?|schedules?)"),
            "focus": (r"(?:reduced|fewer|minimi[sz]ed?|limit\w*) distractions?", r"distraction[- ]free",
                      r"focus (?:tools|apps?|time)", r"timers?",
                      r"(?:break|breaking) (?:tasks|work|content|information) into",
                      r"movement breaks",
                      r"(?:short|shorter) tasks", r"(?:chances?|time|freedom) to move around"),
            "plain_language": (r"plain (?:language|english)", r"clear (?:language|expectations|instructions)",
                               r"(?:literal|direct) (?:language|communication)"),
            "advance_info": (r"(?:advance|prior) (?:information|notice)", r"what to expect", r"virtual tours?",
                             r"(?:questions|information|materials?|schedules?)(?: (?:are|is))?(?: sent| "
                             r"shared| given| provided)? in advance"),
            "stories": (r"social stories", r"visual stories"),
            "lighting": (r"(?:dimmable|dimmed|soft|softer|natural|adjustable) light\w*",
                         r"(?:fluorescent|bright|harsh) light\w*"),
        },
        "markers": ("quiet_spaces", "headphones", "routines", "stories"),
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
            "flexible_work": (r"flexible (?:working|hours|schedules?|work|deadlines)",
                              r"(?:paid|sick|medical|extended|mental health) leave",
                              r"time off", r"phased returns?", r"(?:reduced|manageable|adjusted) (?:workload|hours)",
                              r"(?:take|taking) (?:a )?leave"),
            "peer_support": (r"peer (?:support|supporters|groups|networks|mentors?)", r"support groups?",
                             r"befriending(?: schemes?| services?)?", r"social prescribing"),
            "stigma": (r"stigma\w*", r"mental health (?:awareness|first aid)"),
            "crisis": (r"crisis (?:lines?|support|services|teams?|plans?)", r"helplines?", r"hotlines?"),
            "employee_assistance": (r"employee assistance (?:programmes?|programs?)", r"\bEAPs?\b"),
            "check_ins": (r"(?:regular|wellbeing|one[- ]to[- ]one)(?: one[- ]to[- ]one)? check[- ]ins?",
                          r"wellbeing (?:programmes?|programs?|support)",
                          r"checks? in (?:regularly|often|weekly)"),
            "trauma_informed": (r"trauma[- ]informed",),
        },
        "markers": ("crisis", "peer_support", "counselling"),
    },
}

# Supports that serve more than one category: they name each of these categories in a sentence naming no group.
SHARED_MARKERS: dict[str, tuple[str, ...]] = {
    "Gen/Dev": ("easy_read", "plain_language", "step_by_step"),
    "Learning": ("easy_read", "plain_language", "step_by_step"),
}
